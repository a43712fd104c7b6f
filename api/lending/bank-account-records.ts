import { z } from '@hono/zod-openapi';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import type { Database } from '../../db/client.ts';
import { lendingBankAccounts, lendingCustomers } from '../../db/schema/lending.ts';
import { bankAccountBicSchema, bankAccountIbanSchema } from '../../domain/lending/customers.ts';
import {
  hasPaymentMethod,
  lockCustomerMethods,
  makeDefaultMethod,
  promoteOldestMethod,
} from './payment-method-defaults.ts';

/**
 * A customer's bank accounts (profiles): IBANs checked by ibantools. One default payment method per
 * customer, across bank accounts and cards (payment-method-defaults.ts): the first method added, or the
 * one asked for; when the default is deleted the oldest remaining method takes its place. Deleting
 * keeps the row (`deleted_at`) for the loans that paid to it.
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

type Row = typeof lendingBankAccounts.$inferSelect;
const accountOf = (row: Row): z.infer<typeof bankAccountSchema> => ({
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

export async function listBankAccounts(db: Database, tenantId: string, customerId: string) {
  await requireOwnCustomer(db, tenantId, customerId);
  const rows = await db
    .select()
    .from(lendingBankAccounts)
    .where(liveAccounts(tenantId, customerId))
    .orderBy(asc(lendingBankAccounts.createdAt), asc(lendingBankAccounts.id));
  return rows.map(accountOf);
}

export async function addBankAccount(
  db: Database,
  tenantId: string,
  customerId: string,
  input: z.infer<typeof newBankAccountSchema>,
) {
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
  db: Database,
  tenantId: string,
  customerId: string,
  profileId: string,
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
