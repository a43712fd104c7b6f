import { ApplicationFailure } from '@temporalio/activity';
import { and, eq } from 'drizzle-orm';
import {
  AcquirerRefusal,
  acquirerFor,
  acquirerIdempotencyKey,
  type CardAcquirer,
} from '../../connectors/collect/acquirer.ts';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { ObligationRefusal } from '../../domain/collect/obligation.ts';
import type { ActivityDeps } from '../shared/deps.ts';

export interface AcquirerActivityDeps extends ActivityDeps {
  /** The card acquirer; default the configured one (acquirerFor). */
  acquirer?: CardAcquirer;
}

const ACQUIRER_REFUSED = ObligationRefusal.acquirerRefused;

/**
 * The obligation workflow's calls to the card acquirer. Each carries the idempotency key
 * `<IDN>:<operation>`, so a retried activity, or one run again after a worker crash, is answered the
 * first answer and never captures or voids twice. A refusal (4xx) is final: it fails the activity
 * without retries; an unreachable acquirer is retried by the workflow's retry policy.
 */
export function createAcquirerActivities(deps: AcquirerActivityDeps) {
  const acquirer = deps.acquirer ?? acquirerFor(deps.config);

  const refused = (error: unknown): never => {
    if (error instanceof AcquirerRefusal) {
      const type =
        error.code === 'amount_exceeds_authorisation'
          ? ObligationRefusal.amountExceedsHold
          : ACQUIRER_REFUSED;
      throw ApplicationFailure.nonRetryable(`the card acquirer refused: ${error.message}`, type);
    }
    throw error;
  };

  return {
    /** Captures `amountMinor` of the authorisation; answers STAN (the capture's) and BCODE (approval code). */
    async captureCard(input: {
      idn: string;
      authorisationId: string;
      amountMinor: number;
    }): Promise<{ stan: string; bcode: string }> {
      const captured = await acquirer
        .capture(input.authorisationId, input.amountMinor, acquirerIdempotencyKey(input.idn, 'capture'))
        .catch(refused);
      if (!captured.capture || !captured.approvalCode) {
        throw ApplicationFailure.nonRetryable(
          'the acquirer answered a capture without its codes',
          ACQUIRER_REFUSED,
        );
      }
      return { stan: captured.capture.stan, bcode: captured.approvalCode };
    },

    /** Releases the hold of the authorisation (done already, e.g. at the acquirer's side: nothing to do). */
    async voidCard(input: { idn: string; authorisationId: string }): Promise<void> {
      try {
        await acquirer.void(input.authorisationId, acquirerIdempotencyKey(input.idn, 'void'));
      } catch (error) {
        if (error instanceof AcquirerRefusal && error.code === 'invalid_state') {
          const now = await acquirer.get(input.authorisationId);
          if (now.status === 'voided' || now.status === 'declined') return;
        }
        refused(error);
      }
    },

    /** The read model of a pre-authorisation whose card the acquirer authorised: PENDING → HELD, once. */
    async recordCardHold(input: {
      idn: string;
      acquirer: string;
      authorisationId: string;
      at: string;
    }): Promise<void> {
      const at = new Date(input.at);
      await deps.db.transaction(async (tx) => {
        const moved = await tx
          .update(collectObligations)
          .set({ status: 'HELD', updatedAt: at })
          .where(and(eq(collectObligations.idn, input.idn), eq(collectObligations.status, 'PENDING')))
          .returning({ idn: collectObligations.idn });
        if (moved.length === 0) return;
        await tx.insert(collectObligationEvents).values({
          idn: input.idn,
          status: 'HELD',
          at,
          detail: { acquirer: input.acquirer, authorisationId: input.authorisationId },
        });
      });
    },
  };
}
