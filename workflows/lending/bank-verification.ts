import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createBankVerificationActivities } from '../../activities/lending/bank-verification.ts';
import {
  BankVerificationFailure,
  type BankVerificationInput,
  MAX_ENROLMENT_ATTEMPTS,
  verificationBanksUpdate,
  verificationConsentUpdate,
  verificationOutcomeUpdate,
} from '../../domain/lending/sibling-processes.ts';

type BankVerificationActivities = ReturnType<typeof createBankVerificationActivities>;

// A few quick attempts: a customer waits on the answer, and a gateway that stays down is a 503 to retry.
const gateway = proxyActivities<BankVerificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '300 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** A customer's workflow ends after this long without a step; the next step starts a new run. */
const IDLE = '10 minutes';

/**
 * A customer's bank-verification steps at the open-banking gateway (decision 0047), each an Update that
 * answers once its activity has recorded what it learnt: the banks, a consent started, a consent's
 * outcome. Every step first makes sure the customer is enrolled as lending's user at the gateway, once
 * per customer however many steps arrive together. An enrolment whose answer was lost (the gateway
 * enrolled the address but the user hash never arrived) is continued under the next address, never
 * asked again under the same one (which the gateway refuses as `user_exists` forever).
 */
export async function lendingBankVerification(input: BankVerificationInput): Promise<void> {
  /** Enrolment by gateway URL: one at a time, shared by the steps waiting for it. */
  const enrolments = new Map<string, Promise<void>>();
  let steps = 0;

  async function enrol(gatewayUrl: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await gateway.enrolVerificationCustomer({ ...input, gatewayUrl, attempt });
      } catch (error) {
        const lost = failureType(error) === BankVerificationFailure.enrolmentLost;
        if (!lost || attempt + 1 >= MAX_ENROLMENT_ATTEMPTS) throw error;
      }
    }
  }

  function enrolled(gatewayUrl: string): Promise<void> {
    let enrolment = enrolments.get(gatewayUrl);
    if (!enrolment) {
      enrolment = enrol(gatewayUrl);
      enrolments.set(gatewayUrl, enrolment);
      // A failed enrolment is tried again by the next step.
      enrolment.catch(() => enrolments.delete(gatewayUrl));
    }
    return enrolment;
  }

  /** Runs a step after the enrolment; its failure fails the Update, never the workflow. */
  async function step<T>(gatewayUrl: string, work: () => Promise<T>): Promise<T> {
    steps++;
    try {
      await enrolled(gatewayUrl);
      return await work();
    } catch (error) {
      throw updateFailure(error);
    }
  }

  setHandler(verificationBanksUpdate, (request) =>
    step(request.gatewayUrl, () => gateway.verificationBanks({ ...input, ...request })),
  );
  setHandler(verificationConsentUpdate, (request) =>
    step(request.gatewayUrl, () => gateway.startVerificationConsent({ ...input, ...request })),
  );
  setHandler(verificationOutcomeUpdate, (request) =>
    step(request.gatewayUrl, () => gateway.decideVerification({ ...input, ...request })),
  );

  for (;;) {
    const seen = steps;
    const stepped = await condition(() => steps !== seen, IDLE);
    if (!stepped) {
      await condition(allHandlersFinished);
      if (steps === seen) return;
    } else if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof lendingBankVerification>(input);
    }
  }
}

function failureType(error: unknown): string | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}

/**
 * What the Update fails with: a gateway refusal as it came (`OpenBankingRefused` with its status and
 * code), anything else as `OpenBankingUnavailable` with the last attempt's message.
 */
function updateFailure(error: unknown): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type === BankVerificationFailure.refused)
    return ApplicationFailure.create({
      type: BankVerificationFailure.refused,
      message: cause.message,
      details: cause.details ? [...cause.details] : [],
      nonRetryable: true,
    });
  const message = cause instanceof Error ? cause.message : String(cause);
  return ApplicationFailure.create({
    type: BankVerificationFailure.unavailable,
    message,
    nonRetryable: true,
  });
}
