import { ApplicationFailure, condition, patched, setHandler } from '@temporalio/workflow';
import {
  consentEmbeddedScaUpdate,
  EMBEDDED_SCA_SECRET_STORE_PATCH,
  EmbeddedScaRefusal,
  type EmbeddedScaRequest,
  type EmbeddedScaView,
  embeddedStepOf,
  SCA_SECRET_GONE,
} from '../../../domain/openbanking/processes.ts';
import { type EmbeddedScaStep, Xs2aErrorType } from '../../../domain/openbanking/xs2a.ts';
import { causeMessageOf, failureTypeOf, xs2aFailureTypeOf } from '../bank-refusal.ts';
import { readBankConsentStatus } from './activities.ts';
import type { ConsentProcess } from './state.ts';

type StepKind = ReturnType<typeof embeddedStepOf>;

/**
 * Embedded SCA (decision 0061): the user gives their credentials, chosen method and one-time code to
 * the gateway, one consentEmbeddedScaUpdate each, and each step is relayed to the bank on the link it
 * gave for it; the bank's answers end the SCA.
 */
export function handleEmbeddedSca(consent: ConsentProcess): void {
  setHandler(consentEmbeddedScaUpdate, (request) => relayStep(consent, request), {
    validator: (_request: EmbeddedScaRequest) => {
      const { input, status, sca, embeddedEnded } = consent;
      if (!input.embedded || status !== 'AWAITING_SCA' || sca === undefined || embeddedEnded !== undefined)
        throw ApplicationFailure.nonRetryable(
          'The consent is not waiting for an embedded authentication step',
          EmbeddedScaRefusal.notAwaiting,
        );
    },
  });
}

/** The user's steps ended the SCA at the bank before the deadline (true), or not (false). */
export async function embeddedScaEnded(consent: ConsentProcess): Promise<boolean> {
  const remainingMs = consent.scaTimeLeftMs();
  return (
    remainingMs > 0 &&
    (await condition(() => consent.embeddedEnded !== undefined || consent.ended, remainingMs))
  );
}

const notAwaiting = () =>
  ApplicationFailure.nonRetryable(
    'The bank does not expect this step of the authentication now',
    EmbeddedScaRefusal.notAwaiting,
  );

async function relayStep(consent: ConsentProcess, request: EmbeddedScaRequest): Promise<EmbeddedScaView> {
  const { psu, ...step } = request;
  // Since decision 0068 the password and the code wait outside the engine; the Update names them.
  if ('secretRef' in step) patched(EMBEDDED_SCA_SECRET_STORE_PATCH);
  const kind = embeddedStepOf(step);
  const links = consent.embeddedLinks;
  const href = kind === 'credentials' ? links.start : kind === 'method' ? links.select : links.authorise;
  if (!href) throw notAwaiting();
  let answered: EmbeddedScaStep;
  try {
    answered = await consent.bank.embeddedConsentStep({
      consentId: consent.input.consentId,
      href,
      step,
      ...(psu ? { psu } : {}),
    });
  } catch (error) {
    throw await stepRefusal(consent, kind, error);
  }
  if (kind === 'credentials') links.start = null;
  links.select = answered.links.selectAuthenticationMethod ?? links.select;
  links.authorise = answered.links.authoriseTransaction ?? links.authorise;
  if (answered.scaStatus === 'finalised' || answered.scaStatus === 'failed')
    consent.embeddedEnded ??= answered.scaStatus;
  return {
    scaStatus: answered.scaStatus,
    next: nextStep(consent, answered),
    scaMethods: answered.scaMethods,
    chosenScaMethod: answered.chosenScaMethod,
    challengeData: answered.challengeData,
    psuMessage: answered.psuMessage,
  };
}

/** The step the bank expects next, if the SCA goes on. */
function nextStep(consent: ConsentProcess, answered: EmbeddedScaStep): EmbeddedScaView['next'] {
  if (consent.embeddedEnded) return null;
  if (answered.links.authoriseTransaction) return 'code';
  if (answered.links.selectAuthenticationMethod) return 'method';
  return consent.embeddedLinks.start ? 'credentials' : null;
}

/** The refusal the Update answers for a step the bank did not take. */
async function stepRefusal(
  consent: ConsentProcess,
  kind: StepKind,
  error: unknown,
): Promise<ApplicationFailure> {
  if (failureTypeOf(error) === SCA_SECRET_GONE)
    return ApplicationFailure.nonRetryable(
      'The step is no longer held (it expired, or an interrupted attempt used it): give it again',
      EmbeddedScaRefusal.stepExpired,
    );
  const type = xs2aFailureTypeOf(error);
  if (type === Xs2aErrorType.ScaCredentialsInvalid) {
    // Too many wrong passwords or codes reject the consent at the bank: the SCA has then ended.
    if ((await readBankConsentStatus(consent.ids)) !== 'received') consent.embeddedEnded ??= 'failed';
    return ApplicationFailure.nonRetryable(
      kind === 'credentials' ? 'The user id or password is wrong' : 'The code is wrong',
      EmbeddedScaRefusal.credentialsInvalid,
    );
  }
  if (type === Xs2aErrorType.ScaExpired)
    return ApplicationFailure.nonRetryable('The code has expired', EmbeddedScaRefusal.codeExpired);
  if (type === Xs2aErrorType.StatusInvalid) return notAwaiting();
  if (type === Xs2aErrorType.BankUnavailable)
    return ApplicationFailure.nonRetryable(
      'The bank could not be reached',
      EmbeddedScaRefusal.bankUnavailable,
    );
  return ApplicationFailure.nonRetryable(
    `The bank refused the step: ${causeMessageOf(error)}`,
    EmbeddedScaRefusal.bankRefused,
  );
}
