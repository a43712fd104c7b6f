import { z } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingBankAccounts, lendingCustomers } from '../../db/schema/lending.ts';
import { ApiError, errorBodySchema } from '../shared/errors.ts';
import { deleteBankAccount, listBankAccounts } from './bank-account-records.ts';

/**
 * The customer's payment methods (decision 0042). A payment method id names the method's own record:
 * a bank account's `profileId` (`bac_...`, the records of Management/Customers/{customerId}/BankAccounts,
 * api/lending/bank-account-records.ts) — one id space, told apart by the prefix, so DeleteMethod and
 * SetDefaultMethod take any method. One default method per customer.
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

/** DeleteMethod: when the default is deleted, the oldest remaining method becomes the default. */
export async function deletePaymentMethod(
  db: Database,
  tenantId: string,
  customerId: string,
  paymentMethodId: string,
) {
  if (!isBankAccountId(paymentMethodId)) throw ApiError.notFound('Payment method');
  await deleteBankAccount(db, tenantId, customerId, paymentMethodId);
}

/** SetDefaultMethod: the method becomes the customer's only default (404 when it is not theirs). */
export async function setDefaultPaymentMethod(
  db: Database,
  tenantId: string,
  customerId: string,
  paymentMethodId: string,
) {
  if (!isBankAccountId(paymentMethodId)) throw ApiError.notFound('Payment method');
  const customerAccounts = and(
    eq(lendingBankAccounts.tenantId, tenantId),
    eq(lendingBankAccounts.customerId, customerId),
    isNull(lendingBankAccounts.deletedAt),
  );
  await db.transaction(async (tx) => {
    // The same per-customer lock as adding an account, so two defaults never coexist.
    await tx
      .select({ id: lendingCustomers.id })
      .from(lendingCustomers)
      .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
      .for('update');
    const [method] = await tx
      .select({ id: lendingBankAccounts.id })
      .from(lendingBankAccounts)
      .where(and(customerAccounts, eq(lendingBankAccounts.id, paymentMethodId)))
      .limit(1);
    if (!method) throw ApiError.notFound('Payment method');
    await tx.update(lendingBankAccounts).set({ isDefault: false }).where(customerAccounts);
    await tx
      .update(lendingBankAccounts)
      .set({ isDefault: true })
      .where(eq(lendingBankAccounts.id, method.id));
  });
  const accounts = await listBankAccounts(db, tenantId, customerId);
  return accounts.find((account) => account.profileId === paymentMethodId)!;
}
