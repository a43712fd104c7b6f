import { z } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { lendingBankAccounts } from '../../db/schema/lending.ts';
import type { Config } from '../../platform/config.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { bankAccountSchema, deleteBankAccount, listBankAccounts } from './bank-account-records.ts';
import { cardSchema, deleteCard, setDefaultCard } from './card-records.ts';
import { lockCustomerMethods, makeDefaultMethod } from './payment-method-defaults.ts';

/**
 * The customer's payment methods (decision 0042). A payment method id names the method's own record:
 * a bank account's `profileId` (`bac_...`, the records of Management/Customers/{customerId}/BankAccounts,
 * api/lending/bank-account-records.ts) or a card's `cardId` (`card_...`, card-records.ts, decision 0045)
 * — one id space, told apart by the prefix, so DeleteMethod and SetDefaultMethod take any method. One
 * default method per customer (payment-method-defaults.ts).
 */

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

const isBankAccountId = (paymentMethodId: string) => paymentMethodId.startsWith('bac_');
const isCardId = (paymentMethodId: string) => paymentMethodId.startsWith('card_');

/** DeleteMethod: a card is forgotten at the gateway too; when the default is deleted, the oldest remaining method becomes the default. */
export async function deletePaymentMethod(
  db: Database,
  config: Config,
  tenantId: string,
  customerId: string,
  paymentMethodId: string,
) {
  if (isCardId(paymentMethodId)) return deleteCard(db, config, { tenantId, customerId }, paymentMethodId);
  if (!isBankAccountId(paymentMethodId)) throw Refusal.notFound('Payment method');
  await deleteBankAccount(db, tenantId, customerId, paymentMethodId);
}

/** SetDefaultMethod: the method becomes the customer's only default (404 when it is not theirs). */
export async function setDefaultPaymentMethod(
  db: Database,
  tenantId: string,
  customerId: string,
  paymentMethodId: string,
) {
  const owner = { tenantId, customerId };
  if (isCardId(paymentMethodId)) return setDefaultCard(db, owner, paymentMethodId);
  if (!isBankAccountId(paymentMethodId)) throw Refusal.notFound('Payment method');
  await db.transaction(async (tx) => {
    // The same per-customer lock as adding a method, so two defaults never coexist.
    await lockCustomerMethods(tx, owner);
    const [method] = await tx
      .select({ id: lendingBankAccounts.id })
      .from(lendingBankAccounts)
      .where(
        and(
          eq(lendingBankAccounts.tenantId, tenantId),
          eq(lendingBankAccounts.customerId, customerId),
          isNull(lendingBankAccounts.deletedAt),
          eq(lendingBankAccounts.id, paymentMethodId),
        ),
      )
      .limit(1);
    if (!method) throw Refusal.notFound('Payment method');
    await makeDefaultMethod(tx, owner, method.id);
  });
  const accounts = await listBankAccounts(db, tenantId, customerId);
  return accounts.find((account) => account.profileId === paymentMethodId)!;
}

/** What SetDefaultMethod answers: the method, a bank account or a card. */
export const paymentMethodSchema = z.union([bankAccountSchema, cardSchema]).openapi('PaymentMethod');
