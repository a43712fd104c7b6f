import { log, patched } from '@temporalio/workflow';
import { type LoanEvent, loanEventsBetween } from '../../../domain/lending/loan-events.ts';
import type { LoanSnapshot } from '../../../domain/lending/loan-process.ts';
import { sendToEndpoints } from '../../webhooks/send.ts';

/**
 * The loan's events to its tenant's endpoints (decision 0088): LoanState reads them off each version it
 * records (`changes`, before the write) and, once the write is done, hands them to the webhook engine
 * (`send`) one version after another, without holding up the operation that made the change. `pending`
 * counts hand-overs still running: the workflow ends or continues as new only once they are done.
 * Loans whose history began before this (no `lending-events` marker) send nothing, so their recorded
 * histories replay.
 */
export class LoanEvents {
  /** Hand-overs still running. */
  pending = 0;
  private queue: Promise<void> = Promise.resolve();

  /** `base`: the loan as last recorded (a continued run's loan); none for a new loan. */
  constructor(private base: LoanSnapshot | undefined) {}

  /** The events of `snapshot`, the version about to be recorded, since the last one. */
  changes(snapshot: LoanSnapshot, at: string): LoanEvent[] {
    const events = loanEventsBetween(this.base, snapshot, at);
    this.base = snapshot;
    return events;
  }

  /** A write the database refused: the loan is back to `recorded`, and so are its events. */
  undone(recorded: LoanSnapshot | undefined): void {
    this.base = recorded;
  }

  /** Hands the events of a recorded version over, after those of the versions before it. */
  send(events: LoanEvent[]): void {
    if (events.length === 0 || !patched('lending-events')) return;
    const [first] = events;
    const owner = { service: 'lending', ownerId: first!.payload.tenantId };
    this.pending += 1;
    this.queue = this.queue
      .then(() => sendToEndpoints(owner, events))
      .catch((error: unknown) => {
        log.warn('lending events not handed over', { eventIds: events.map((event) => event.eventId), error });
      })
      .finally(() => {
        this.pending -= 1;
      });
  }
}
