import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticationErrors,
  encodedQuerySchema,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
} from './protocol.ts';

/** A signed amount as `-12.34` (formatAmount knows only positive ones). */
const signedAmount = (minor: number) => (minor < 0 ? `-${formatAmount(-minor)}` : formatAmount(minor));

/**
 * The merchant's balance in the gateway's ledger (docs/collect.md "Ledger"): what the gateway owes it
 * after its settled payments, less its payouts (reserved when registered), sends and fees.
 */
export const merchantBalanceOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/merchant/balance',
      tags: ['Ledger'],
      summary: "Read the merchant's balance (MerchantBalancePayload)",
      description:
        'Packet: `MIN`, optional `CURRENCY` (default BGN). Answers `MIN`, `CURRENCY` and `BALANCE` (may be negative: ' +
        'payouts and sends are taken from the balance when registered, whatever it holds; see docs/collect.md "Ledger").',
      request: { query: encodedQuerySchema },
      responses: textResponses(
        'Balance',
        'MIN=D123456789\nCURRENCY=BGN\nBALANCE=1250.40\n',
        authenticationErrors,
      ),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      const balance = await collect.merchantBalance(c.get('deps'), await requestParams(c));
      return textAnswer(c, {
        MIN: balance.min,
        CURRENCY: balance.currency,
        BALANCE: signedAmount(balance.balanceMinor),
      });
    }),
});
