import { log, patched } from '@temporalio/workflow';
import {
  documentSignedEvents,
  type LoanEvent,
  loanEventsBetween,
} from '../../../domain/lending/loan-events.ts';
import { stepOf } from '../../../domain/lending/loan-lifecycle.ts';
import type { LoanSnapshot } from '../../../domain/lending/loan-process.ts';
import { sendToEndpoints } from '../../webhooks/send.ts';
import { signaturesAnnounced, signaturesToAnnounce } from './activities.ts';

/** What a recorded version hands over: its events, and the version before it when it took signatures. */
export interface LoanChanges {
  events: LoanEvent[];
  /** The version before, recorded where SignDocument applies: signatures given at it are caught up. */
  signing: LoanSnapshot | undefined;
}

/**
 * The loan's events to its tenant's endpoints (decision 0088): LoanState reads them off each version it
 * records (`changes`, before the write) and, once the write is done, hands them to the webhook engine
 * (`send`) one version after another, without holding up the operation that made the change. `pending`
 * counts hand-overs still running: the workflow ends or continues as new only once they are done.
 * Loans whose history began before this (no `lending-events` marker) send nothing, so their recorded
 * histories replay. Signatures (recorded by SignDocument, outside the workflow) are announced on its
 * hint (`signatures`) and caught up by the first change after a version where signing applied
 * (`lending-document-events`).
 */
export class LoanEvents {
  /** Hand-overs still running. */
  pending = 0;
  private queue: Promise<void> = Promise.resolve();
  /** An announcement of signatures is queued, not started: a second one would find nothing more. */
  private signaturesQueued = false;

  /** `base`: the loan as last recorded (a continued run's loan); none for a new loan. */
  constructor(private base: LoanSnapshot | undefined) {}

  /** The events of `snapshot`, the version about to be recorded, since the last one. */
  changes(snapshot: LoanSnapshot, at: string): LoanChanges {
    const before = this.base;
    const events = loanEventsBetween(before, snapshot, at);
    this.base = snapshot;
    const signable =
      before !== undefined &&
      stepOf('signDocument', before.status, { offerAccepted: before.acceptedOfferId !== null }).allowed;
    return { events, signing: signable ? before : undefined };
  }

  /** A write the database refused: the loan is back to `recorded`, and so are its events. */
  undone(recorded: LoanSnapshot | undefined): void {
    this.base = recorded;
  }

  /** Hands the events of a recorded version over, after those of the versions before it. */
  send({ events, signing }: LoanChanges): void {
    // Signatures first: they were given before this change (Approve's, a cancel's).
    if (signing) this.signatures(signing);
    if (events.length === 0 || !patched('lending-events')) return;
    const [first] = events;
    this.enqueue(first!.payload.tenantId, events.map((event) => event.eventId).join(' '), async (owner) => {
      await sendToEndpoints(owner, events);
    });
  }

  /**
   * Announces the loan's signatures not yet announced (`loan.document_signed`, with `loan`'s version):
   * read, handed over, then marked announced. A crash in between repeats the hand-over with the same
   * event ids, which the webhook engine delivers once.
   */
  signatures(loan: LoanSnapshot | undefined = this.base): void {
    if (!loan || this.signaturesQueued || !patched('lending-document-events')) return;
    this.signaturesQueued = true;
    const { tenantId, loanId } = loan;
    this.enqueue(tenantId, 'signatures', async (owner) => {
      this.signaturesQueued = false;
      const found = await signaturesToAnnounce({ tenantId, loanId });
      if (found.length === 0) return;
      await sendToEndpoints(owner, documentSignedEvents(loan, found));
      await signaturesAnnounced({ tenantId, loanId, contentHashes: found.map((found) => found.contentHash) });
    });
  }

  /** Runs a hand-over after the ones before it, counted in `pending`. */
  private enqueue(
    tenantId: string,
    what: string,
    work: (owner: { service: string; ownerId: string }) => Promise<void>,
  ) {
    this.pending += 1;
    this.queue = this.queue
      .then(() => work({ service: 'lending', ownerId: tenantId }))
      .catch((error: unknown) => {
        log.warn('lending events not handed over', { events: what, error });
      })
      .finally(() => {
        this.pending -= 1;
      });
  }
}
