import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingBankAccounts, lendingCustomers } from '../../db/schema/lending.ts';
import { lendingCards } from '../../db/schema/lending-payment-options.ts';

/**
 * One default payment method per customer, across kinds (decisions 0042, 0045): bank accounts
 * (lending_bank_accounts) and active cards (lending_cards). Every change of a default runs in a
 * transaction holding the customer's row lock, so two defaults never coexist.
 */

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface MethodOwner {
  tenantId: string;
  customerId: string;
}

/** The customer's row lock: one writer of their methods at a time. */
export async function lockCustomerMethods(tx: Tx, { tenantId, customerId }: MethodOwner): Promise<void> {
  await tx
    .select({ id: lendingCustomers.id })
    .from(lendingCustomers)
    .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
    .for('update');
}

const liveAccounts = ({ tenantId, customerId }: MethodOwner) =>
  and(
    eq(lendingBankAccounts.tenantId, tenantId),
    eq(lendingBankAccounts.customerId, customerId),
    isNull(lendingBankAccounts.deletedAt),
  );
const activeCards = ({ tenantId, customerId }: MethodOwner) =>
  and(
    eq(lendingCards.tenantId, tenantId),
    eq(lendingCards.customerId, customerId),
    eq(lendingCards.status, 'active'),
    isNull(lendingCards.deletedAt),
  );

/** The customer's live methods (bank accounts and active cards), oldest first. */
async function methodsOf(tx: Tx, owner: MethodOwner) {
  const accounts = await tx
    .select({
      id: lendingBankAccounts.id,
      isDefault: lendingBankAccounts.isDefault,
      since: lendingBankAccounts.createdAt,
    })
    .from(lendingBankAccounts)
    .where(liveAccounts(owner))
    .orderBy(asc(lendingBankAccounts.createdAt));
  const cards = await tx
    .select({ id: lendingCards.id, isDefault: lendingCards.isDefault, since: lendingCards.activatedAt })
    .from(lendingCards)
    .where(activeCards(owner));
  return [...accounts, ...cards.map((card) => ({ ...card, since: card.since ?? new Date(0) }))].sort(
    (a, b) => a.since.getTime() - b.since.getTime() || a.id.localeCompare(b.id),
  );
}

/** Whether the customer has any live method (a new one is then not the default unless asked). */
export async function hasPaymentMethod(tx: Tx, owner: MethodOwner): Promise<boolean> {
  return (await methodsOf(tx, owner)).length > 0;
}

/** Makes `methodId` the customer's only default (the caller checked it is theirs and live). */
export async function makeDefaultMethod(tx: Tx, owner: MethodOwner, methodId: string): Promise<void> {
  await tx.update(lendingBankAccounts).set({ isDefault: false }).where(liveAccounts(owner));
  await tx.update(lendingCards).set({ isDefault: false }).where(activeCards(owner));
  if (methodId.startsWith('card_'))
    await tx
      .update(lendingCards)
      .set({ isDefault: true, wantsDefault: false })
      .where(eq(lendingCards.id, methodId));
  else
    await tx.update(lendingBankAccounts).set({ isDefault: true }).where(eq(lendingBankAccounts.id, methodId));
}

/**
 * After the default left (deleted, or unset): the oldest remaining method other than `except` becomes
 * the default; answers whether one did.
 */
export async function promoteOldestMethod(tx: Tx, owner: MethodOwner, except?: string): Promise<boolean> {
  const methods = await methodsOf(tx, owner);
  if (methods.some((method) => method.isDefault && method.id !== except)) return true;
  const oldest = methods.find((method) => method.id !== except);
  if (!oldest) return false;
  await makeDefaultMethod(tx, owner, oldest.id);
  return true;
}
