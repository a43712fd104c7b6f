import { and, eq, isNull } from 'drizzle-orm';
import { lendingBankAccounts } from '../../db/schema/lending.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { type BankAccountView, deleteBankAccount, listBankAccounts } from './bank-accounts.ts';
import { type CardView, deleteCard, setDefaultCard } from './cards.ts';
import { lockCustomerMethods, makeDefaultMethod } from './payment-method-defaults.ts';

/**
 * The customer's payment methods (decision 0042). A payment method id names the method's own record:
 * a bank account's `profileId` (`bac_...`, the records of Management/Customers/{customerId}/BankAccounts,
 * bank-accounts.ts) or a card's `cardId` (`card_...`, cards.ts, decision 0045)
 * — one id space, told apart by the prefix, so DeleteMethod and SetDefaultMethod take any method. One
 * default method per customer (payment-method-defaults.ts).
 */

/** A payment method of the customer. */
interface PaymentMethodRequest {
  tenantId: string;
  customerId: string;
  paymentMethodId: string;
}

const isBankAccountId = (paymentMethodId: string) => paymentMethodId.startsWith('bac_');
const isCardId = (paymentMethodId: string) => paymentMethodId.startsWith('card_');

/** DeleteMethod: a card is forgotten at the gateway too; when the default is deleted, the oldest remaining method becomes the default. */
export async function deletePaymentMethod(
  deps: Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>,
  { tenantId, customerId, paymentMethodId }: PaymentMethodRequest,
) {
  if (isCardId(paymentMethodId))
    return deleteCard(deps, { owner: { tenantId, customerId }, cardId: paymentMethodId });
  if (!isBankAccountId(paymentMethodId)) throw Refusal.notFound('Payment method');
  await deleteBankAccount(deps, { tenantId, customerId, profileId: paymentMethodId });
}

/** SetDefaultMethod: the method becomes the customer's only default (404 when it is not theirs). */
export async function setDefaultPaymentMethod(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, customerId, paymentMethodId }: PaymentMethodRequest,
): Promise<BankAccountView | CardView> {
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
  const accounts = await listBankAccounts({ db }, { tenantId, customerId });
  return accounts.find((account) => account.profileId === paymentMethodId)!;
}
