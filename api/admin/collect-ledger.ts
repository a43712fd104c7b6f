import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { MIN_PATTERN } from '../../credentials/collect/merchants.ts';
import { ledgerAccountKinds, PROVIDER_ACCOUNT_ID } from '../../domain/collect/ledger.ts';
import { currencies } from '../../domain/collect/payloads.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of the collect ledger (docs/collect.md "Ledger" and "Provider accounts",
 * decision 0029): every account's balance, and a provider account read, transferred or paid out in
 * cash. The holder of a provider account is not a merchant and has no credentials here: the platform
 * operator moves its money on the holder's instruction (bearer ADMIN_TOKEN).
 */

const providerAccountParam = z.object({
  account: z
    .string()
    .regex(PROVIDER_ACCOUNT_ID, 'a provider account is KIN:<digits>, EMAIL:<address> or GSM:<digits>')
    .openapi({
      description: 'Provider account id: `<RCPT_TYPE>:<RCPT>` of send.cgi',
      example: 'KIN:1234567',
    }),
});
const amountMinor = z
  .number()
  .int()
  .positive()
  .max(Number.MAX_SAFE_INTEGER)
  .openapi({ description: 'Minor units', example: 5000 });
const currency = z.enum(currencies).openapi({ example: 'BGN' });
const reference = z
  .string()
  .regex(/^[0-9A-Za-z._-]{1,64}$/, '1-64 letters, digits, dots, dashes or underscores')
  .openapi({
    description: 'Idempotency key: the same request again changes nothing',
    example: 'tr-2027-0001',
  });

const balanceSchema = z.object({ currency: z.string(), balanceMinor: z.number().int() });

const listAccountsRoute = createRoute({
  method: 'get',
  path: '/collect/ledger/accounts',
  tags: ['Admin'],
  summary: 'List the collect ledger’s accounts and balances',
  description:
    'Every account with a balance row, on its normal side: a merchant’s or provider account’s positive balance is ' +
    'what the gateway owes; desk cash, the bank settlement account and acquirer receivables are what it holds or is owed.',
  request: {
    query: z.object({
      kind: z.enum(ledgerAccountKinds).optional(),
      currency: currency.optional(),
    }),
  },
  responses: {
    200: {
      description: 'Accounts',
      content: {
        'application/json': {
          schema: z
            .object({
              accounts: z.array(
                z.object({ account: z.string(), kind: z.enum(ledgerAccountKinds), ...balanceSchema.shape }),
              ),
            })
            .openapi('LedgerAccounts'),
        },
      },
    },
    ...errorResponses,
  },
});

const readProviderAccountRoute = createRoute({
  method: 'get',
  path: '/collect/provider-accounts/{account}',
  tags: ['Admin'],
  summary: 'Read a provider account: balances and latest movements',
  request: { params: providerAccountParam },
  responses: {
    200: {
      description: 'The account (an account nothing was ever sent to has no balances)',
      content: {
        'application/json': {
          schema: z
            .object({
              account: z.string(),
              balances: z.array(balanceSchema),
              movements: z.array(
                z.object({
                  key: z.string(),
                  kind: z.string(),
                  idn: z.string().nullable(),
                  at: z.string(),
                  currency: z.string(),
                  amountMinor: z.number().int().openapi({ description: 'Positive: credited to the account' }),
                }),
              ),
            })
            .openapi('ProviderAccount'),
        },
      },
    },
    ...errorResponses,
  },
});

const transferSchema = z
  .object({ reference: z.string(), from: z.string(), to: z.string(), balances: z.array(balanceSchema) })
  .openapi('ProviderTransfer');
const payoutSchema = z
  .object({ idn: z.string(), status: z.string(), expiresAt: z.string(), fundedBy: z.string() })
  .openapi('ProviderPayout');

const transferRoute = createRoute({
  method: 'post',
  path: '/collect/provider-accounts/{account}/transfers',
  tags: ['Admin'],
  summary: 'Transfer money from a provider account to another',
  description:
    '409 `insufficient_funds` when the account does not hold the amount (a provider account never goes negative), ' +
    '`reference_conflict` when the reference was used for another transfer. The same request again answers 200.',
  request: {
    params: providerAccountParam,
    body: jsonBody(z.object({ reference, to: providerAccountParam.shape.account, currency, amountMinor })),
  },
  responses: {
    201: { description: 'Transferred', content: { 'application/json': { schema: transferSchema } } },
    200: {
      description: 'Done before: nothing changed',
      content: { 'application/json': { schema: transferSchema } },
    },
    ...errorResponses,
    409: { description: 'Insufficient funds or reference used', content: errorResponses[400].content },
  },
});

const payoutRoute = createRoute({
  method: 'post',
  path: '/collect/provider-accounts/{account}/payouts',
  tags: ['Admin'],
  summary: 'Pay a provider account out in cash at an office',
  description:
    'Registers a cash payout (payout_office) funded by the provider account, collectable at a cash desk by the ' +
    'named recipient until `expiresAt` (COLLECT_PAYOUT_EXPIRY by default). The amount is reserved from the account at ' +
    'once and given back if the payout expires. `merchantMin` is the merchant it is registered under and notified ' +
    'to (e.g. the operator’s own back office); its balance is not touched. 409 `insufficient_funds`, ' +
    '`reference_conflict` (the merchant used the reference for something else); the same request again answers 200.',
  request: {
    params: providerAccountParam,
    body: jsonBody(
      z.object({
        reference,
        merchantMin: z.string().regex(MIN_PATTERN, 'a MIN is D followed by 9 digits'),
        currency,
        amountMinor,
        recipientName: z.string().regex(/^[\p{L}][\p{L} .'-]{1,99}$/u, 'a name of 2-100 letters'),
        recipientId: z
          .string()
          .regex(/^[0-9A-Za-z]{5,20}$/, 'the personal or document number, 5-20 letters or digits'),
        recipientPhone: z
          .string()
          .regex(/^\+?\d{6,15}$/, 'a phone number')
          .optional(),
        expiresAt: z.iso.datetime({ offset: true }).optional(),
      }),
    ),
  },
  responses: {
    201: { description: 'Registered', content: { 'application/json': { schema: payoutSchema } } },
    200: {
      description: 'Registered before: the same payout',
      content: { 'application/json': { schema: payoutSchema } },
    },
    ...errorResponses,
    409: { description: 'Insufficient funds or reference used', content: errorResponses[400].content },
  },
});

export function registerLedgerAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listAccountsRoute, async (c) => {
    const { kind, currency: only } = c.req.valid('query');
    const accounts = await collect.listLedgerAccounts(c.get('deps'), { kind, currency: only });
    return c.json({ accounts }, 200);
  });

  app.openapi(readProviderAccountRoute, async (c) => {
    const { account } = c.req.valid('param');
    return c.json(await collect.readProviderAccount(c.get('deps'), { account }), 200);
  });

  app.openapi(transferRoute, async (c) => {
    const { account } = c.req.valid('param');
    const body = c.req.valid('json');
    const { balances, replayed } = await collect.transferBetweenProviderAccounts(c.get('deps'), {
      reference: body.reference,
      from: account,
      to: body.to,
      currency: body.currency,
      amountMinor: body.amountMinor,
    });
    return c.json({ reference: body.reference, from: account, to: body.to, balances }, replayed ? 200 : 201);
  });

  app.openapi(payoutRoute, async (c) => {
    const { account } = c.req.valid('param');
    const body = c.req.valid('json');
    const { obligation, replayed } = await collect.payOutProviderAccount(c.get('deps'), {
      account,
      merchantMin: body.merchantMin,
      reference: body.reference,
      currency: body.currency,
      amountMinor: body.amountMinor,
      recipientName: body.recipientName,
      recipientId: body.recipientId,
      recipientPhone: body.recipientPhone,
      expiresAt: body.expiresAt,
    });
    return c.json(
      {
        idn: obligation.idn,
        status: obligation.status,
        expiresAt: obligation.expiresAt.toISOString(),
        fundedBy: account,
      },
      replayed ? 200 : 201,
    );
  });
}
