import { sealRecipientId } from '../../credentials/collect/recipient-ids.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { balancesOf, LedgerCoverRefused, listBalances, movementsOf } from '../../db/collect/ledger.ts';
import {
  ProviderMovementConflict,
  type ProviderPayout,
  registerProviderPayout,
  transferProviderMoney,
  UnknownMerchant,
} from '../../db/collect/provider-accounts.ts';
import { balanceOf, type LedgerAccountKind, ledgerAccount } from '../../domain/collect/ledger.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import type { Obligation } from './obligation.ts';
import { ensureWorkflow, generateIdn, startWorkflow } from './registration.ts';

/**
 * The operator's side of the collect ledger (docs/collect.md "Ledger" and "Provider accounts",
 * decision 0029): every account's balance, and a provider account read, transferred or paid out in
 * cash. The holder of a provider account is not a merchant: the platform operator moves its money on
 * the holder's instruction.
 */

export interface Balance {
  currency: string;
  balanceMinor: number;
}

const refusalOf = (error: unknown): never => {
  if (error instanceof LedgerCoverRefused) {
    throw Refusal.conflict(
      'insufficient_funds',
      `the account holds ${error.balanceMinor} ${error.currency} minor units`,
    );
  }
  if (error instanceof ProviderMovementConflict) throw Refusal.conflict('reference_conflict', error.message);
  if (error instanceof UnknownMerchant) throw Refusal.field('merchantMin', 'no such merchant');
  throw error;
};

/** Every account with a balance row, on its normal side; `kind` and `currency` narrow it. */
export function listLedgerAccounts(
  deps: Pick<UseCaseDeps, 'db'>,
  filter: { kind?: LedgerAccountKind | undefined; currency?: string | undefined },
): Promise<{ account: string; kind: LedgerAccountKind; currency: string; balanceMinor: number }[]> {
  return listBalances(deps.db, filter);
}

export interface ProviderAccountView {
  account: string;
  balances: Balance[];
  /** The latest 50, newest first; a positive amount is credited to the account. */
  movements: {
    key: string;
    kind: string;
    idn: string | null;
    at: string;
    currency: string;
    amountMinor: number;
  }[];
}

/** A provider account's balances and latest movements. */
export async function readProviderAccount(
  deps: UseCaseDeps,
  { account }: { account: string },
): Promise<ProviderAccountView> {
  const ledgerName = ledgerAccount.provider(account);
  const movements = await movementsOf(deps.db, ledgerName, 50);
  return {
    account,
    balances: await balancesOf(deps.db, ledgerName),
    movements: movements.map((line) => ({
      ...line,
      at: line.at.toISOString(),
      amountMinor: balanceOf(ledgerName, line.amountMinor),
    })),
  };
}

/**
 * Transfers money from a provider account to another, once per reference (the same request again
 * changes nothing: `replayed`); answers the source account's balances.
 */
export async function transferBetweenProviderAccounts(
  deps: UseCaseDeps,
  transfer: { reference: string; from: string; to: string; currency: string; amountMinor: number },
): Promise<{ balances: Balance[]; replayed: boolean }> {
  if (transfer.to === transfer.from) throw Refusal.field('to', 'must be another account');
  const { replayed } = await transferProviderMoney(deps.db, { ...transfer, requestedBy: 'admin' }).catch(
    refusalOf,
  );
  const balances = await balancesOf(deps.db, ledgerAccount.provider(transfer.from));
  return { balances, replayed };
}

/**
 * Registers a cash payout funded by a provider account, collectable at a cash desk until `expiresAt`
 * (COLLECT_PAYOUT_EXPIRY by default), and starts its workflow. The same request again answers the
 * same payout (`replayed`).
 */
export async function payOutProviderAccount(
  deps: UseCaseDeps,
  payout: Omit<ProviderPayout, 'expiresAt'> & { expiresAt?: string | undefined },
): Promise<{ obligation: Obligation; replayed: boolean }> {
  const now = Date.now();
  const expiresAt = payout.expiresAt
    ? new Date(payout.expiresAt)
    : new Date(now + deps.config.COLLECT_PAYOUT_EXPIRY);
  if (expiresAt.getTime() <= now) throw Refusal.field('expiresAt', 'has passed');
  if (expiresAt.getTime() > now + deps.config.COLLECT_MAX_EXPIRY) {
    throw Refusal.field('expiresAt', 'is further away than the gateway allows');
  }
  const { obligation, replayed } = await registerProviderPayout(
    deps.db,
    { ...payout, expiresAt },
    generateIdn,
    (details) =>
      sealRecipientId(
        collectSecretKey(deps.config),
        { merchantMin: payout.merchantMin, invoice: payout.reference },
        details,
      ),
  ).catch(refusalOf);
  // A lost start is repaired by the same request again (the start is idempotent by workflow id).
  await (replayed ? ensureWorkflow(deps, obligation) : startWorkflow(deps, obligation));
  return { obligation, replayed };
}
