import { type Client, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, desc, eq, inArray, ne, or } from 'drizzle-orm';
import type { ObligationKind } from '../../domain/collect/obligation.ts';
import {
  obligationWorkflowId,
  payObligationUpdate,
  type SettlementSource,
} from '../../domain/collect/processes.ts';
import { statementPaymentCodes } from '../../domain/collect/statement.ts';
import {
  type ReviewReason,
  reviewReasonOfRefusal,
  statementPaymentUpdateId,
} from '../../domain/collect/statement-matching.ts';
import type { Database } from '../client.ts';
import { collectObligationEvents, collectObligations } from '../schema/collect.ts';
import { collectStatementCredits } from '../schema/collect-statements.ts';

/**
 * Settling one statement credit: the same step for the import workflow's batches
 * (activities/collect/statements.ts) and for an operator resolving a review item
 * (application/collect/statements.ts). The payment is an Update of the obligation's workflow; why it
 * was refused is read from the read model the workflow writes, next to the credits it records.
 */

export interface CreditToSettle {
  id: number;
  statementId: string;
  entryRef: string;
  obligationIdn: string;
  kind: ObligationKind;
}

/**
 * Pays the obligation with the credit through the obligation's workflow: `settled`, or why not.
 * Safe to repeat: the workflow takes one payment (its validator refuses a second), and a refusal as
 * paid is recognised as this credit's own earlier payment by the source recorded with PAID.
 */
export async function settleCredit(
  deps: { db: Database; temporal: Client },
  credit: CreditToSettle,
): Promise<'settled' | ReviewReason> {
  const codes = statementPaymentCodes(credit.statementId, credit.entryRef);
  let refusal: ReviewReason;
  try {
    await deps.temporal.workflow
      .getHandle(obligationWorkflowId(credit.kind, credit.obligationIdn))
      .executeUpdate(payObligationUpdate, {
        updateId: statementPaymentUpdateId(credit.id),
        args: [
          {
            ...codes,
            source: { channel: 'bank_statement', statementId: credit.statementId, entryRef: credit.entryRef },
          },
        ],
      });
    return 'settled';
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      refusal = reviewReasonOfRefusal(error.cause.type ?? undefined);
    } else if (error instanceof WorkflowNotFoundError) {
      // The workflow has closed (paid, expired): the read model says which.
      refusal = await refusalFromReadModel(deps.db, credit.obligationIdn);
    } else {
      throw error;
    }
  }
  if (refusal !== 'obligation_paid') return refusal;
  // Who paid it: the source recorded with PAID (activities/collect/obligation.ts).
  const [paid] = await deps.db
    .select({ detail: collectObligationEvents.detail })
    .from(collectObligationEvents)
    .where(
      and(eq(collectObligationEvents.idn, credit.obligationIdn), eq(collectObligationEvents.status, 'PAID')),
    )
    .orderBy(desc(collectObligationEvents.id))
    .limit(1);
  const source = paid?.detail.source as SettlementSource | undefined;
  if (source?.channel === 'bank_statement') {
    // This credit's own payment, repeated after a crash before it was recorded; or another credit's.
    const own = source.statementId === credit.statementId && source.entryRef === credit.entryRef;
    return own ? 'settled' : 'duplicate_credit';
  }
  if (source) return 'obligation_paid';
  // PAID is being recorded right now: by another credit of ours, or by another channel.
  const [other] = await deps.db
    .select({ id: collectStatementCredits.id })
    .from(collectStatementCredits)
    .where(
      and(
        eq(collectStatementCredits.obligationIdn, credit.obligationIdn),
        ne(collectStatementCredits.id, credit.id),
        or(
          inArray(collectStatementCredits.state, ['matched', 'settled']),
          and(
            eq(collectStatementCredits.state, 'resolved'),
            eq(collectStatementCredits.resolution, 'settled'),
          ),
        ),
      ),
    )
    .limit(1);
  return other ? 'duplicate_credit' : 'obligation_paid';
}

async function refusalFromReadModel(db: Database, idn: string): Promise<ReviewReason> {
  const [row] = await db
    .select({ status: collectObligations.status })
    .from(collectObligations)
    .where(eq(collectObligations.idn, idn));
  if (row?.status === 'PAID') return 'obligation_paid';
  if (row?.status === 'EXPIRED') return 'obligation_expired';
  return 'obligation_closed';
}
