import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoanDocumentDecisions } from '../../db/schema/lending-documents.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../db/schema/lending-loans.ts';
import { systemDocumentTypes } from '../../domain/lending/loan-documents.ts';
import type { LoanSignature } from '../../domain/lending/loan-events.ts';
import type { LoanSnapshot, LoanStatusChange } from '../../domain/lending/loan-process.ts';
import { recordBids } from './bids.ts';
import { recordSubmissions } from './repayments.ts';
import { recordServicing } from './servicing.ts';

export interface LoanRecord {
  snapshot: LoanSnapshot;
  /** When the change happened (workflow time, ISO). */
  at: string;
  /** A status change (or an operation recorded in the history), if any. */
  change?: LoanStatusChange | undefined;
}

/**
 * Read-model writes of the loan workflow. A snapshot replaces the row only when it is newer (its
 * version), and a history entry is keyed by the version it came with: a retried activity, or an older
 * write finishing after a newer one, changes nothing.
 */
export function createLoanRecordActivities({ db }: { db: Database }) {
  return {
    async recordLoan({ snapshot, at, change }: LoanRecord): Promise<void> {
      const when = new Date(at);
      const row = {
        tenantId: snapshot.tenantId,
        loanId: snapshot.loanId,
        customerId: snapshot.customerId,
        productName: snapshot.productName,
        promoCode: snapshot.promoCode,
        currency: snapshot.currency,
        amount: snapshot.amount,
        term: snapshot.term,
        secured: snapshot.secured,
        status: snapshot.status,
        offers: snapshot.offers,
        acceptedOfferId: snapshot.acceptedOfferId,
        multipleOffers: snapshot.multipleOffers,
        collaterals: snapshot.collaterals,
        coApplicant: snapshot.coApplicant,
        rolloverRequested: snapshot.rolloverRequested,
        autocharge: snapshot.autocharge,
        autochargeComment: snapshot.autochargeComment,
        decision: snapshot.decision,
        disbursement: snapshot.disbursement,
        version: snapshot.version,
        updatedAt: when,
      };
      await db.transaction(async (tx) => {
        await tx
          .insert(lendingLoans)
          .values({ ...row, createdAt: when })
          .onConflictDoUpdate({
            target: [lendingLoans.tenantId, lendingLoans.loanId],
            set: row,
            setWhere: lt(lendingLoans.version, sql`excluded.version`),
          });
        await recordServicing(tx, snapshot, when);
        await recordSubmissions(tx, snapshot, when);
        await recordBids(tx, snapshot);
        if (change) {
          await tx
            .insert(lendingLoanStatusHistory)
            .values({
              tenantId: snapshot.tenantId,
              loanId: snapshot.loanId,
              version: snapshot.version,
              status: change.status,
              at: new Date(change.at),
              actorRole: change.by.role,
              actorId: change.by.id ?? null,
              comments: change.comments ?? null,
              reasonId: change.reasonId ?? null,
            })
            .onConflictDoNothing();
        }
      });
    },

    /** The loan's signatures not yet announced (oldest first): SignDocument writes them unannounced. */
    async signaturesToAnnounce({ tenantId, loanId }: LoanKey): Promise<LoanSignature[]> {
      const rows = await db
        .select({
          docTypeId: lendingLoanDocumentDecisions.docTypeId,
          contentHash: lendingLoanDocumentDecisions.contentHash,
          at: lendingLoanDocumentDecisions.at,
        })
        .from(lendingLoanDocumentDecisions)
        .where(and(...ofLoan({ tenantId, loanId }), eq(lendingLoanDocumentDecisions.decision, 'signed')))
        .orderBy(asc(lendingLoanDocumentDecisions.at));
      return rows.map(({ docTypeId, contentHash, at }) => ({
        docTypeId,
        name: systemDocumentTypes.find((type) => type.docTypeId === docTypeId)?.name ?? docTypeId,
        contentHash,
        signedAt: at.toISOString(),
      }));
    },

    /** Marks signatures announced once their events are handed over (a repeat changes nothing). */
    async signaturesAnnounced({ tenantId, loanId, contentHashes }: LoanKey & { contentHashes: string[] }) {
      if (contentHashes.length === 0) return;
      await db
        .update(lendingLoanDocumentDecisions)
        .set({ announcedAt: new Date() })
        .where(
          and(
            ...ofLoan({ tenantId, loanId }),
            inArray(lendingLoanDocumentDecisions.contentHash, contentHashes),
          ),
        );
    },
  };
}

type LoanKey = { tenantId: string; loanId: string };

/** A loan's decisions not yet announced. */
const ofLoan = ({ tenantId, loanId }: LoanKey) => [
  eq(lendingLoanDocumentDecisions.tenantId, tenantId),
  eq(lendingLoanDocumentDecisions.loanId, loanId),
  isNull(lendingLoanDocumentDecisions.announcedAt),
];
