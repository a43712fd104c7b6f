import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { balancesOf } from '../../activities/collect/ledger.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { ledgerAccount } from '../../domain/collect/ledger.ts';
import { currencies, DEFAULT_CURRENCY, MIN_TEXT, parsePayload } from '../../domain/collect/payloads.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticate,
  authenticationErrors,
  encodedQuerySchema,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
} from './protocol.ts';

/** GET /collect/merchant/balance: MIN and an optional CURRENCY (BGN by default). */
const MerchantBalancePayload = z
  .object({
    MIN: z.string().regex(MIN_TEXT, 'must be D followed by 9 digits'),
    CURRENCY: z
      .enum(currencies, { error: `must be one of ${currencies.join(', ')}` })
      .default(DEFAULT_CURRENCY),
    ENCODING: z.string().optional(),
  })
  .transform((p) => ({ min: p.MIN, currency: p.CURRENCY }));

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
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      const { currency } = parsePayload(MerchantBalancePayload, packet);
      const balances = await balancesOf(deps.db, ledgerAccount.merchant(merchant.min));
      const balanceMinor = balances.find((balance) => balance.currency === currency)?.balanceMinor ?? 0;
      return textAnswer(c, { MIN: merchant.min, CURRENCY: currency, BALANCE: signedAmount(balanceMinor) });
    }),
});
