import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import {
  ledgerAccount,
  ledgerKeys,
  payoutReservation,
  providerTransfer,
} from '../../domain/collect/ledger.ts';
import type { Database } from '../client.ts';
import { collectMerchants, collectObligations } from '../schema/collect.ts';
import { collectLedgerTransactions } from '../schema/collect-ledger.ts';
import { ledgerObligationOf, postLedgerTransaction } from './ledger.ts';

/**
 * Moving the money of provider accounts (docs/collect.md "Provider accounts", decision 0029): a
 * transfer to another provider account, or a cash payout collectable at a desk. Only the platform
 * operator moves it (the admin API, application/collect/ledger.ts); neither can take an account below
 * zero. The keys are not the database's: the caller seals the recipient id.
 */

/** The same reference was used before for another movement. */
export class ProviderMovementConflict extends Error {}
/** The merchant a payout is registered under does not exist. */
export class UnknownMerchant extends Error {}

export interface ProviderTransfer {
  reference: string;
  from: string;
  to: string;
  currency: string;
  amountMinor: number;
  /** Who asked (for the record). */
  requestedBy: string;
}

/**
 * Transfers between provider accounts, once per reference: the same request again changes nothing
 * (`replayed`), another one with the same reference is a ProviderMovementConflict. LedgerCoverRefused
 * when `from` does not hold the amount.
 */
export async function transferProviderMoney(
  db: Database,
  transfer: ProviderTransfer,
): Promise<{ replayed: boolean }> {
  const terms = {
    from: transfer.from,
    to: transfer.to,
    currency: transfer.currency,
    amountMinor: transfer.amountMinor,
  };
  return db.transaction(async (tx) => {
    const posted = await postLedgerTransaction(
      tx,
      providerTransfer(
        transfer.reference,
        transfer.from,
        transfer.to,
        transfer.currency,
        transfer.amountMinor,
      ),
      {
        detail: { ...terms, requestedBy: transfer.requestedBy },
        cover: [ledgerAccount.provider(transfer.from)],
      },
    );
    if (posted) return { replayed: false };
    const [earlier] = await tx
      .select({ detail: collectLedgerTransactions.detail })
      .from(collectLedgerTransactions)
      .where(eq(collectLedgerTransactions.key, ledgerKeys.transfer(transfer.reference)));
    const same = earlier && Object.entries(terms).every(([key, value]) => earlier.detail[key] === value);
    if (!same)
      throw new ProviderMovementConflict(`reference ${transfer.reference} was used for another transfer`);
    return { replayed: true };
  });
}

export interface ProviderPayout {
  account: string;
  /** The merchant the payout is registered under and notified to (decision 0029). */
  merchantMin: string;
  /** Unique per merchant, like a merchant's INVOICE: the idempotency key. */
  reference: string;
  currency: string;
  amountMinor: number;
  recipientName: string;
  recipientId: string;
  recipientPhone?: string | undefined;
  expiresAt: Date;
}

export type Obligation = typeof collectObligations.$inferSelect;

/**
 * Registers a cash payout funded by a provider account: the payout_office row and its reservation
 * (provider account → payouts owed, refused with LedgerCoverRefused when the account does not hold
 * it) in one transaction. The caller starts its workflow. The same request again answers the same
 * payout (`replayed`); another one with the same reference is a ProviderMovementConflict.
 */
export async function registerProviderPayout(
  db: Database,
  payout: ProviderPayout,
  newIdn: () => string,
  /** Stores the recipient id sealed (credentials/collect/recipient-ids.ts, COLLECT_SECRET_KEY). */
  sealRecipient: (details: Record<string, string>) => Record<string, string>,
): Promise<{ obligation: Obligation; replayed: boolean }> {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        'provider-payout',
        payout.account,
        payout.currency,
        payout.amountMinor,
        payout.recipientName,
        payout.recipientId,
        payout.recipientPhone ?? '',
      ]),
    )
    .digest('hex');
  const findEarlier = async () => {
    const [row] = await db
      .select()
      .from(collectObligations)
      .where(
        and(
          eq(collectObligations.merchantMin, payout.merchantMin),
          eq(collectObligations.invoice, payout.reference),
        ),
      );
    if (row && row.payloadDigest !== digest) {
      throw new ProviderMovementConflict(
        `reference ${payout.reference} is registered already with different data`,
      );
    }
    return row;
  };
  const earlier = await findEarlier();
  if (earlier) return { obligation: earlier, replayed: true };
  const [merchant] = await db
    .select({ min: collectMerchants.min })
    .from(collectMerchants)
    .where(eq(collectMerchants.min, payout.merchantMin));
  if (!merchant) throw new UnknownMerchant(`no merchant ${payout.merchantMin}`);

  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(collectObligations)
        .values({
          idn: newIdn(),
          merchantMin: payout.merchantMin,
          invoice: payout.reference,
          kind: 'payout_office',
          status: 'PENDING',
          amountMinor: payout.amountMinor,
          currency: payout.currency,
          description: `payout from provider account ${payout.account}`,
          payloadDigest: digest,
          details: sealRecipient({
            recipientName: payout.recipientName,
            recipientId: payout.recipientId,
            ...(payout.recipientPhone ? { recipientPhone: payout.recipientPhone } : {}),
            fundedBy: payout.account,
          }),
          expiresAt: payout.expiresAt,
        })
        .onConflictDoNothing()
        .returning();
      if (!inserted) return undefined;
      await postLedgerTransaction(tx, payoutReservation(ledgerObligationOf(inserted)), {
        cover: [ledgerAccount.provider(payout.account)],
      });
      return inserted;
    });
    if (row) return { obligation: row, replayed: false };
    // The same reference won a race (a replay or a conflict), or the random IDN was taken.
    const raced = await findEarlier();
    if (raced) return { obligation: raced, replayed: true };
  }
  throw new Error('could not allocate a free IDN');
}
