import { z } from '@hono/zod-openapi';
import { bankAccountBicSchema, bankAccountIbanSchema } from '../../domain/lending/customers.ts';
import { errorBodySchema } from '../shared/errors.ts';

/**
 * The customer's payment methods as the API takes and answers them: bank accounts, cards (the use
 * cases: application/lending/bank-accounts.ts, cards.ts, payment-methods.ts).
 */

export const newBankAccountSchema = z
  .object({
    // A domain schema (built before zod is extended for OpenAPI): described with meta, not openapi.
    iban: bankAccountIbanSchema.meta({
      example: 'DE89370400440532013000',
      description: 'Spaces allowed; checked',
    }),
    bic: bankAccountBicSchema.optional().meta({ example: 'COBADEFFXXX' }),
    holderName: z.string().trim().min(1).max(140).optional().openapi({ example: 'Jane Doe' }),
    isDefault: z.boolean().optional().openapi({ description: 'Make it the default account' }),
  })
  .openapi('NewBankAccount');

export const bankAccountSchema = z
  .object({
    profileId: z.string().openapi({ example: 'bac_9d2c4f1e0a7b4c6d8e3f2a10' }),
    iban: z.string(),
    bic: z.string().nullable(),
    holderName: z.string().nullable(),
    isDefault: z.boolean(),
    createdAt: z.string(),
  })
  .openapi('BankAccount');

export const cardSchema = z
  .object({
    cardId: z.string().openapi({ example: 'card_3f2a9c1d7e5b4a60' }),
    status: z.enum(['pending', 'active', 'failed']).openapi({
      description:
        '`pending` until the customer has passed the card page; `active` once the gateway saved the card; `failed` when the card was declined or the page expired',
    }),
    isDefault: z.boolean(),
    nickname: z.string().nullable(),
    brand: z.string().nullable().openapi({ example: 'VISA' }),
    last4: z.string().nullable().openapi({ example: '4242' }),
    expiryMonth: z.number().int().nullable().openapi({ example: 12 }),
    expiryYear: z.number().int().nullable().openapi({ example: 2029 }),
    reason: z.string().nullable().openapi({ description: 'Why the card failed' }),
    createdAt: z.string(),
    activatedAt: z.string().nullable(),
  })
  .openapi('Card');

const nickname = z.string().trim().min(1).max(50).openapi({ example: 'My salary card' });

export const newCardSchema = z
  .object({
    isDefault: z.boolean().optional().openapi({ description: 'Make it the default method once it is saved' }),
    nickname: nickname.optional(),
    returnUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(500)
      .optional()
      .openapi({
        description:
          'Where the card page sends the customer back (URL_OK, URL_CANCEL); on a site domain of the tenant',
        example: 'https://loans.acme.example/cards/done',
      }),
  })
  .strict()
  .openapi('NewCard');

export const cardChangeSchema = z
  .object({
    isDefault: z.boolean().optional().openapi({
      description:
        '`true` makes it the default method (a pending card once saved); `false` on the default moves the default to the oldest other method',
    }),
    nickname: nickname.nullable().optional(),
  })
  .strict()
  .refine((change) => change.isDefault !== undefined || change.nickname !== undefined, {
    message: 'give isDefault or nickname',
  })
  .openapi('CardChange');

export const cardPageSchema = z
  .object({
    action: z.string().openapi({ example: 'https://platform.example/collect/' }),
    method: z.literal('POST'),
    fields: z.record(z.string(), z.string()).openapi({
      description: 'Hidden fields of the form: PAGE, ENCODED, CHECKSUM',
    }),
  })
  .openapi('CardPageForm');

export const paymentMethodIdQuery = z.object({
  paymentMethodId: z.string().min(1).max(100).openapi({ example: 'bac_9d2c4f1e0a7b4c6d8e3f2a10' }),
});

/** The documented refusals of the bank verification operations. */
export const bankVerificationErrors = {
  409: {
    description:
      '`invalid_loan_status` (a closed loan), `no_pending_bank_verification`, `bank_verification_completed`, ' +
      '`sca_flow_not_supported` (the bank has no page for the frame)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  503: {
    description: '`bank_verification_unavailable`: the open-banking gateway cannot be reached or failed',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

/** What SetDefaultMethod answers: the method, a bank account or a card. */
export const paymentMethodSchema = z.union([bankAccountSchema, cardSchema]).openapi('PaymentMethod');
