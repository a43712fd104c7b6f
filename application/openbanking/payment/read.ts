import { and, desc, eq } from 'drizzle-orm';
import type { UserIdentity } from '../../../credentials/openbanking/identity.ts';
import type { Database } from '../../../db/client.ts';
import type { obAccounts, obConsents } from '../../../db/schema/openbanking.ts';
import { obPayments, type PaymentRow } from '../../../db/schema/openbanking-payments.ts';
import {
  decimalOf,
  type PaymentKind,
  type PaymentScaMethod,
  type PaymentState,
  type PaymentStatus,
  type TransactionStatus,
} from '../../../domain/openbanking/payments.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { findUserAccount } from '../accounts.ts';
import { requireAgentHook } from '../hooks.ts';

/**
 * A single payment (decision 0033) as it stands: its record (read model), the authorization flag of the
 * account it is paid from, and the payments of a hook. Creating, confirming, cancelling: the other files
 * of this folder; the process itself: workflows/openbanking/payment.ts.
 */

export interface PaymentView {
  code: string;
  kind: PaymentKind;
  status: PaymentStatus;
  state: PaymentState;
  statusReason: string | null;
  ibanId: string | null;
  debtorIban: string;
  bankHash: string;
  creditorIban: string;
  creditorName: string;
  amount: string;
  currency: string;
  remittanceInformation: string | null;
  budget: { regulatoryReportType: string; paymentCategory: string; details: Record<string, string> } | null;
  hookHash: string | null;
  sca: { method: PaymentScaMethod; redirectUrl: string | null; message: string | null } | null;
  bankTransactionStatus: TransactionStatus | null;
  createdAt: string;
  updatedAt: string;
  confirmedAt: string | null;
  finishedAt: string | null;
}

export const toPaymentView = (row: PaymentRow): PaymentView => ({
  code: row.code,
  kind: row.kind,
  status: row.status,
  state: row.state,
  statusReason: row.statusReason,
  ibanId: row.ibanId,
  debtorIban: row.debtorIban,
  bankHash: row.bankHash,
  creditorIban: row.creditorIban,
  creditorName: row.creditorName,
  amount: decimalOf(row.amountMinor),
  currency: row.currency,
  remittanceInformation: row.remittanceInformation,
  budget:
    row.regulatoryReportType && row.paymentCategory
      ? {
          regulatoryReportType: row.regulatoryReportType,
          paymentCategory: row.paymentCategory,
          details: row.budgetDetails ?? {},
        }
      : null,
  hookHash: row.hookHash,
  sca: row.scaMethod
    ? { method: row.scaMethod, redirectUrl: row.scaRedirectUrl, message: row.scaMessage }
    : null,
  bankTransactionStatus: row.bankTransactionStatus,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null,
});

/** A payment of the calling user; unknown, or another user's, is 404 (existence is not leaked). */
export async function findUserPayment(db: Database, user: UserIdentity, code: string): Promise<PaymentRow> {
  const [row] = await db
    .select()
    .from(obPayments)
    .where(and(eq(obPayments.code, code), eq(obPayments.userId, user.userId)))
    .limit(1);
  if (!row) throw Refusal.notFound('Payment');
  return row;
}

/** GET payment/status: the user's payment by its code, from the read model. */
export async function readPayment(
  deps: UseCaseDeps,
  { user, code }: { user: UserIdentity; code: string },
): Promise<PaymentView> {
  return toPaymentView(await findUserPayment(deps.db, user, code));
}

// ─── The authorization flag of an added account ─────────────────────────────────────────────────

/**
 * An added account may be paid from (flag true) while the consent that added it is ACTIVE and within
 * its validUntil: the user has proven at the bank, with SCA, that the account is theirs. Otherwise
 * (the consent expired, was revoked or ended) the flag is false and POST payment/sca/{ibanId} starts a
 * new consent for that account. Every payment is still authorised by the user at the bank (its own SCA).
 */
export function paymentAuthorizationOf(
  account: typeof obAccounts.$inferSelect,
  consent: typeof obConsents.$inferSelect,
  today = new Date().toISOString().slice(0, 10),
): { authorized: boolean; reason: string | null } {
  if (consent.status !== 'ACTIVE')
    return { authorized: false, reason: `the consent that added the account is ${consent.status}` };
  if (consent.validUntil < today)
    return { authorized: false, reason: 'the consent that added the account has expired' };
  if (account.deletedAt) return { authorized: false, reason: 'the account was deleted' };
  return { authorized: true, reason: null };
}

export interface PaymentAuthorization {
  ibanId: string;
  iban: string;
  authorized: boolean;
  reason: string | null;
  consentValidUntil: string;
}

/** GET payment/ibans/{ibanId}: the authorization flag of the user's account. */
export async function readPaymentAuthorization(
  deps: UseCaseDeps,
  { user, ibanId }: { user: UserIdentity; ibanId: string },
): Promise<PaymentAuthorization> {
  const { account, consent } = await findUserAccount(deps.db, user.userId, ibanId);
  return {
    ibanId: account.id,
    iban: account.iban,
    ...paymentAuthorizationOf(account, consent),
    consentValidUntil: consent.validUntil,
  };
}

/** The flag of an account of the user, read again (after a payment from it was recorded). */
export async function authorizedNow(db: Database, user: UserIdentity, ibanId: string): Promise<boolean> {
  const { account, consent } = await findUserAccount(db, user.userId, ibanId);
  return paymentAuthorizationOf(account, consent).authorized;
}

// ─── By hook ───────────────────────────────────────────────────────────────────────────────

/**
 * GET status/{hookHash}: the payments made with a hook of the agent, newest first (at most 50). A hook
 * names a URL to call, not a payment. Another agent's hook, or one no payment used, is 404.
 */
export async function paymentsOfHook(
  deps: UseCaseDeps,
  { agentId, hookHash }: { agentId: string; hookHash: string },
): Promise<{ latest: PaymentView; payments: PaymentView[] }> {
  const { db } = deps;
  await requireAgentHook(db, agentId, hookHash);
  const rows = await db
    .select()
    .from(obPayments)
    .where(and(eq(obPayments.hookHash, hookHash), eq(obPayments.agentId, agentId)))
    .orderBy(desc(obPayments.createdAt), desc(obPayments.code))
    .limit(50);
  const latest = rows[0];
  if (!latest) throw Refusal.notFound('Payment');
  return { latest: toPaymentView(latest), payments: rows.map(toPaymentView) };
}
