import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import {
  type ConsentOutcome,
  type ConsentState,
  outcomeOfBankStatus,
} from '../../domain/openbanking/consents.ts';
import {
  type BankCallback,
  bankCallbackSignal,
  type ConsentFlowInput,
  ConsentStartRefusal,
  consentEmbeddedScaUpdate,
  consentEndedSignal,
  consentRefreshWorkflowId,
  consentStartedUpdate,
  EMBEDDED_SCA_SECRET_STORE_PATCH,
  EmbeddedScaRefusal,
  type EmbeddedScaRequest,
  type EmbeddedScaView,
  embeddedStepOf,
  SCA_SECRET_GONE,
  type ScaStart,
  type StoredAccount,
} from '../../domain/openbanking/processes.ts';
import {
  DECOUPLED_BACKOFF_PATCH,
  decoupledPollDelayMs,
  type EmbeddedScaStep,
  OAUTH2_SCA_PATCH,
  type OAuthScaPending,
  type ScaStatus,
  Xs2aErrorType,
} from '../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { bankStartRefusal, causeMessageOf, failureTypeOf, xs2aFailureTypeOf } from './bank-refusal.ts';
import { consentRefresh } from './consent-refresh.ts';
import { unlessRefused, unrecordableReason } from './data-refusal.ts';

const {
  readBankConsentStatus,
  terminateBankConsent,
  recordConsentOutcome,
  prepareConsentWebhook,
  exchangeBankAuthorisationCode,
} = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Reading every account's history can take a while; a bank in maintenance is retried for up to an hour.
const { storeConsentAccounts, storeAccountList } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/**
 * One consent with its strong customer authentication (SCA) at the bank (`ob-consent-<consentId>`):
 * create the bank consent → hand the SCA page to the caller → wait for the user to come back from the
 * bank (or give up after OPENBANKING_SCA_TIMEOUT) → ask the bank how the SCA ended → store the
 * accounts, balances and transactions → call the hook with the outcome → hand an ACTIVE consent to its
 * scheduled refreshes (consent-refresh.ts).
 */
export async function consentAuthorisation(input: ConsentFlowInput): Promise<ConsentState> {
  let status: ConsentState = 'AWAITING_SCA';
  let sca: ScaStart | undefined;
  let startFailure: ApplicationFailure | undefined;
  let callback: BankCallback | undefined;
  let outcomeRecorded = false;
  let ended = false;
  /** Embedded SCA (decision 0061): the bank's links for the next step, and how the SCA ended. */
  const embeddedLinks: { start: string | null; select: string | null; authorise: string | null } = {
    start: null,
    select: null,
    authorise: null,
  };
  let embeddedEnded: ScaStatus | undefined;
  /** OAuth2 SCA (decision 0067): the authorisation request's code_verifier and state, until the callback. */
  let oauth: OAuthScaPending | undefined;

  setHandler(
    consentStartedUpdate,
    async () => {
      // A refusal is answered once the read model says FAILED, so the caller reads what it was told.
      await condition(() => sca !== undefined || (startFailure !== undefined && outcomeRecorded));
      if (startFailure) throw startFailure;
      return sca!;
    },
    {
      validator: () => {
        if (status !== 'AWAITING_SCA')
          throw ApplicationFailure.nonRetryable(`The consent is ${status}`, ConsentStartRefusal.notStarting);
      },
    },
  );
  // Embedded SCA: each step the user gives is relayed to the bank on the link it gave for it.
  setHandler(
    consentEmbeddedScaUpdate,
    async (request: EmbeddedScaRequest): Promise<EmbeddedScaView> => {
      const { psu, ...step } = request;
      // Since decision 0068 the password and the code wait outside the engine; the Update names them.
      if ('secretRef' in step) patched(EMBEDDED_SCA_SECRET_STORE_PATCH);
      const kind = embeddedStepOf(step);
      const href =
        kind === 'credentials'
          ? embeddedLinks.start
          : kind === 'method'
            ? embeddedLinks.select
            : embeddedLinks.authorise;
      if (!href)
        throw ApplicationFailure.nonRetryable(
          'The bank does not expect this step of the authentication now',
          EmbeddedScaRefusal.notAwaiting,
        );
      let answered: EmbeddedScaStep;
      try {
        answered = await bankConsentStarter(input).embeddedConsentStep({
          consentId: input.consentId,
          href,
          step,
          ...(psu ? { psu } : {}),
        });
      } catch (error) {
        if (failureTypeOf(error) === SCA_SECRET_GONE)
          throw ApplicationFailure.nonRetryable(
            'The step is no longer held (it expired, or an interrupted attempt used it): give it again',
            EmbeddedScaRefusal.stepExpired,
          );
        const type = xs2aFailureTypeOf(error);
        if (type === Xs2aErrorType.ScaCredentialsInvalid) {
          // Too many wrong passwords or codes reject the consent at the bank: the SCA has then ended.
          if ((await readBankConsentStatus({ consentId: input.consentId })) !== 'received')
            embeddedEnded ??= 'failed';
          throw ApplicationFailure.nonRetryable(
            kind === 'credentials' ? 'The user id or password is wrong' : 'The code is wrong',
            EmbeddedScaRefusal.credentialsInvalid,
          );
        }
        if (type === Xs2aErrorType.ScaExpired)
          throw ApplicationFailure.nonRetryable('The code has expired', EmbeddedScaRefusal.codeExpired);
        if (type === Xs2aErrorType.StatusInvalid)
          throw ApplicationFailure.nonRetryable(
            'The bank does not expect this step of the authentication now',
            EmbeddedScaRefusal.notAwaiting,
          );
        if (type === Xs2aErrorType.BankUnavailable)
          throw ApplicationFailure.nonRetryable(
            'The bank could not be reached',
            EmbeddedScaRefusal.bankUnavailable,
          );
        throw ApplicationFailure.nonRetryable(
          `The bank refused the step: ${causeMessageOf(error)}`,
          EmbeddedScaRefusal.bankRefused,
        );
      }
      if (kind === 'credentials') embeddedLinks.start = null;
      embeddedLinks.select = answered.links.selectAuthenticationMethod ?? embeddedLinks.select;
      embeddedLinks.authorise = answered.links.authoriseTransaction ?? embeddedLinks.authorise;
      if (answered.scaStatus === 'finalised' || answered.scaStatus === 'failed')
        embeddedEnded ??= answered.scaStatus;
      return {
        scaStatus: answered.scaStatus,
        next: embeddedEnded
          ? null
          : answered.links.authoriseTransaction
            ? 'code'
            : answered.links.selectAuthenticationMethod
              ? 'method'
              : embeddedLinks.start
                ? 'credentials'
                : null,
        scaMethods: answered.scaMethods,
        chosenScaMethod: answered.chosenScaMethod,
        challengeData: answered.challengeData,
        psuMessage: answered.psuMessage,
      };
    },
    {
      validator: (_request: EmbeddedScaRequest) => {
        if (!input.embedded || status !== 'AWAITING_SCA' || sca === undefined || embeddedEnded !== undefined)
          throw ApplicationFailure.nonRetryable(
            'The consent is not waiting for an embedded authentication step',
            EmbeddedScaRefusal.notAwaiting,
          );
      },
    },
  );
  // Only the first callback counts; a repeated or late one is harmless.
  setHandler(bankCallbackSignal, (received) => {
    callback ??= received;
  });
  // The gateway ended the consent (its user was deleted): it is TERMINATED already, no hook.
  setHandler(consentEndedSignal, () => {
    ended = true;
  });
  const stop = async () => {
    status = 'TERMINATED';
    upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
    await terminateBankConsent({ consentId: input.consentId });
    await condition(allHandlersFinished);
    return status;
  };

  const finish = async (outcome: ConsentOutcome, reason: string | null, accounts: StoredAccount[] = []) => {
    status = outcome;
    upsertSearchAttributes([{ key: BusinessStatus, value: outcome }]);
    // A reason the database refuses (the bank's text, issue 20): the outcome is recorded without it.
    await unlessRefused(
      `the outcome ${outcome} of the consent`,
      { consentId: input.consentId },
      () => recordConsentOutcome({ consentId: input.consentId, status: outcome, reason }),
      async (refusal) => {
        if (reason === null) throw ApplicationFailure.nonRetryable(refusal);
        await recordConsentOutcome({
          consentId: input.consentId,
          status: outcome,
          reason: unrecordableReason(refusal),
        });
      },
    );
    outcomeRecorded = true;
    const webhook = await prepareConsentWebhook({
      consentId: input.consentId,
      state: input.state,
      status: outcome,
      reason,
      accounts,
    });
    if (webhook) await sendWebhook(webhook);
    await condition(allHandlersFinished);
    return outcome;
  };

  // 1. The bank consent, and the SCA page the user is sent to.
  try {
    const created = await bankConsentStarter(input).createBankConsent({
      consentId: input.consentId,
      redirectUri: input.redirectUri,
      nokRedirectUri: input.nokRedirectUri,
      ...(input.psu ? { psu: input.psu } : {}),
      ...(input.decoupled ? { psuId: input.decoupled.psuId } : {}),
      ...(input.embedded ? { embedded: true } : {}),
    });
    embeddedLinks.start = created.embeddedStartUrl ?? null;
    oauth = created.oauth;
    sca = {
      consentId: input.consentId,
      state: input.state,
      scaRedirectUrl: created.scaRedirectUrl,
      psuMessage: created.psuMessage,
      scaDeadline: input.scaDeadline,
    };
  } catch (error) {
    startFailure = bankStartRefusal(error, 'the bank consent', {
      refused: ConsentStartRefusal.bankRefused,
      unavailable: ConsentStartRefusal.bankUnavailable,
    });
    return finish('FAILED', startFailure.message);
  }

  // 2. The user authenticates at the bank; the bank sends the browser back to the gateway (redirect),
  // or, decoupled, the user approves in the bank's app and the gateway reads the consent until it moves.
  const remainingMs = Date.parse(input.scaDeadline) - Date.now();
  // Embedded: the user's steps, relayed by consentEmbeddedScaUpdate, end the SCA at the bank.
  const calledBack = input.decoupled
    ? await decoupledScaEnded(input.consentId, input.decoupled.pollMs, input.scaDeadline, () => ended)
    : input.embedded
      ? remainingMs > 0 && (await condition(() => embeddedEnded !== undefined || ended, remainingMs))
      : remainingMs > 0 && (await condition(() => callback !== undefined || ended, remainingMs));
  if (ended) return stop();
  if (!calledBack) {
    await terminateBankConsent({ consentId: input.consentId });
    return finish('ABANDONED', 'the user did not complete the authentication at the bank in time');
  }

  // OAuth2 SCA: the code the callback brought (with our state) is exchanged for the bank's tokens; the
  // consent is valid at the bank only then. A refused code leaves it unauthorised (REJECTED below).
  if (oauth && callback?.code && patched(OAUTH2_SCA_PATCH)) {
    if (callback.oauthState === oauth.state) {
      try {
        await exchangeBankAuthorisationCode({ consentId: input.consentId, code: callback.code, oauth });
      } catch (error) {
        if (!xs2aFailureTypeOf(error)) throw error;
      }
    }
  }

  // 3. The bank, not the browser, says how the authentication ended.
  const bankStatus = await readBankConsentStatus({ consentId: input.consentId });
  const outcome = outcomeOfBankStatus(bankStatus);
  if (outcome !== 'ACTIVE') {
    if (bankStatus === 'received') await terminateBankConsent({ consentId: input.consentId });
    return finish(outcome, `the bank reports the consent as ${bankStatus}`);
  }

  // 4. Read what the consent grants into the read model. Bank data the database refuses for good
  // (issue 20) ends the consent FAILED with the reason, and the bank consent with it.
  const unstorable = async (refusal: string) => {
    await terminateBankConsent({ consentId: input.consentId });
    await finish('FAILED', `the accounts could not be stored: ${refusal}`);
    return undefined;
  };
  const ids = { consentId: input.consentId };
  if (input.kind === 'account-list') {
    const stored = await unlessRefused(
      'the account list of the consent',
      ids,
      async () => {
        await storeAccountList({ consentId: input.consentId });
        return true;
      },
      unstorable,
    );
    if (!stored) return 'FAILED';
    // One-shot: the list is read once, so the bank consent is ended at once.
    await terminateBankConsent({ consentId: input.consentId });
    return finish('ACTIVE', null);
  }
  const accounts = await unlessRefused(
    'the accounts of the consent',
    ids,
    () => storeConsentAccounts({ consentId: input.consentId }),
    unstorable,
  );
  if (!accounts) return 'FAILED';
  if (ended) return stop();
  await finish('ACTIVE', null, accounts);
  // 5. From now on the read model is kept fresh on a schedule, until the consent ends.
  await startChild(consentRefresh, {
    workflowId: consentRefreshWorkflowId(input.consentId),
    args: [{ consentId: input.consentId, reads: { day: new Date().toISOString().slice(0, 10), reads: 1 } }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
    staticSummary: `Scheduled refreshes of consent ${input.consentId}`,
  });
  return 'ACTIVE';
}

/**
 * Reads the consent at the bank until it leaves `received` (true), or the deadline passes (false), the
 * reads backing off from the configured interval.
 */
async function decoupledScaEnded(
  consentId: string,
  pollMs: number,
  deadline: string,
  ended: () => boolean,
): Promise<boolean> {
  // The reads back off (decision 0061); a history recorded before that polls at the fixed interval.
  const backoff = patched(DECOUPLED_BACKOFF_PATCH);
  for (let attempt = 0; Date.now() < Date.parse(deadline); attempt += 1) {
    const wait = backoff ? decoupledPollDelayMs(pollMs, attempt) : pollMs;
    if (await condition(ended, Math.min(wait, Math.max(1, Date.parse(deadline) - Date.now())))) return true;
    if ((await readBankConsentStatus({ consentId })) !== 'received') return true;
  }
  return false;
}

/** The bank consent is created while the API waits: few, short attempts. */
function bankConsentStarter(input: ConsentFlowInput) {
  return proxyActivities<OpenBankingActivities>({
    startToCloseTimeout: input.bankRequestTimeoutMs + 5_000,
    scheduleToCloseTimeout: 2 * input.bankRequestTimeoutMs + 15_000,
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  });
}
