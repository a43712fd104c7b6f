import { and, asc, eq, isNull } from 'drizzle-orm';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import type { Database } from '../../db/client.ts';
import { lendingBankAccounts, lendingCustomers } from '../../db/schema/lending.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import {
  hasPaymentMethod,
  lockCustomerMethods,
  type MethodOwner,
  makeDefaultMethod,
  promoteOldestMethod,
} from './payment-method-defaults.ts';

/**
 * A customer's bank accounts (profiles): IBANs checked by ibantools. One default payment method per
 * customer, across bank accounts and cards (payment-method-defaults.ts): the first method added, or the
 * one asked for; when the default is deleted the oldest remaining method takes its place. Deleting
 * keeps the row (`deleted_at`) for the loans that paid to it.
 */

/** A bank account (profile) as the API answers it (api/lending/payment-option-schemas.ts). */
export interface BankAccountView {
  profileId: string;
  iban: string;
  bic: string | null;
  holderName: string | null;
  isDefault: boolean;
  createdAt: string;
}

export interface NewBankAccount {
  /** Checked and normalised by the API's schema (domain/lending/customers.ts). */
  iban: string;
  bic?: string | undefined;
  holderName?: string | undefined;
  isDefault?: boolean | undefined;
}

type Row = typeof lendingBankAccounts.$inferSelect;
const accountOf = (row: Row): BankAccountView => ({
  profileId: row.id,
  iban: row.iban,
  bic: row.bic,
  holderName: row.holderName,
  isDefault: row.isDefault,
  createdAt: row.createdAt.toISOString(),
});

/** 404 unless the customer is the tenant's. */
async function requireOwnCustomer(db: Pick<Database, 'select'>, tenantId: string, customerId: string) {
  const [row] = await db
    .select({ id: lendingCustomers.id })
    .from(lendingCustomers)
    .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
    .limit(1);
  if (!row) throw Refusal.notFound('Customer');
}

const liveAccounts = (tenantId: string, customerId: string) =>
  and(
    eq(lendingBankAccounts.tenantId, tenantId),
    eq(lendingBankAccounts.customerId, customerId),
    isNull(lendingBankAccounts.deletedAt),
  );

export async function listBankAccounts(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, customerId }: MethodOwner,
): Promise<BankAccountView[]> {
  await requireOwnCustomer(db, tenantId, customerId);
  const rows = await db
    .select()
    .from(lendingBankAccounts)
    .where(liveAccounts(tenantId, customerId))
    .orderBy(asc(lendingBankAccounts.createdAt), asc(lendingBankAccounts.id));
  return rows.map(accountOf);
}

export async function addBankAccount(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, customerId, account: input }: MethodOwner & { account: NewBankAccount },
): Promise<BankAccountView> {
  const owner = { tenantId, customerId };
  return db.transaction(async (tx) => {
    await requireOwnCustomer(tx, tenantId, customerId);
    // One writer per customer at a time, so "the first method is the default" holds under races.
    await lockCustomerMethods(tx, owner);
    const existing = await tx.select().from(lendingBankAccounts).where(liveAccounts(tenantId, customerId));
    if (existing.some((account) => account.iban === input.iban)) {
      throw Refusal.conflict('bank_account_exists', 'The customer already has this IBAN');
    }
    const isDefault = input.isDefault === true || !(await hasPaymentMethod(tx, owner));
    const [row] = await tx
      .insert(lendingBankAccounts)
      .values({
        id: newRecordId('bac'),
        tenantId,
        customerId,
        iban: input.iban,
        bic: input.bic ?? null,
        holderName: input.holderName ?? null,
        isDefault: false,
      })
      .returning();
    if (isDefault) await makeDefaultMethod(tx, owner, row!.id);
    return accountOf({ ...row!, isDefault });
  });
}

/** Deletes an account of the customer (404 when it is not theirs or already deleted). */
export async function deleteBankAccount(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, customerId, profileId }: MethodOwner & { profileId: string },
) {
  await db.transaction(async (tx) => {
    await requireOwnCustomer(tx, tenantId, customerId);
    await lockCustomerMethods(tx, { tenantId, customerId });
    const [deleted] = await tx
      .update(lendingBankAccounts)
      .set({ deletedAt: new Date(), isDefault: false })
      .where(and(eq(lendingBankAccounts.id, profileId), liveAccounts(tenantId, customerId)))
      .returning({ wasDefault: lendingBankAccounts.isDefault });
    if (!deleted) throw Refusal.notFound('Bank account');
    await promoteOldestMethod(tx, { tenantId, customerId });
  });
}
