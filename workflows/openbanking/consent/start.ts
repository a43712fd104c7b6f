import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import {
  ConsentStartRefusal,
  consentStartedUpdate,
  type ScaStart,
} from '../../../domain/openbanking/processes.ts';
import { bankStartRefusal } from '../bank-refusal.ts';
import type { ConsentProcess } from './state.ts';

/**
 * The start: the bank consent is created while the API waits (consentStartedUpdate), which answers the
 * SCA page the user is sent to, or the bank's refusal once the read model says FAILED.
 */
export function handleStart(consent: ConsentProcess): void {
  setHandler(consentStartedUpdate, () => scaStart(consent), {
    validator: () => {
      if (consent.status !== 'AWAITING_SCA')
        throw ApplicationFailure.nonRetryable(
          `The consent is ${consent.status}`,
          ConsentStartRefusal.notStarting,
        );
    },
  });
}

/** A refusal is answered once the read model says FAILED, so the caller reads what it was told. */
async function scaStart(consent: ConsentProcess): Promise<ScaStart> {
  await condition(
    () => consent.sca !== undefined || (consent.startFailure !== undefined && consent.outcomeRecorded),
  );
  if (consent.startFailure) throw consent.startFailure;
  return consent.sca!;
}

/**
 * Creates the bank consent (with the approach's details) and keeps what the user is sent to; answers
 * the bank's refusal, if it refused or could not be reached.
 */
export async function createBankConsent(consent: ConsentProcess): Promise<ApplicationFailure | undefined> {
  const { input } = consent;
  try {
    const created = await consent.bank.createBankConsent({
      consentId: input.consentId,
      redirectUri: input.redirectUri,
      nokRedirectUri: input.nokRedirectUri,
      ...(input.psu ? { psu: input.psu } : {}),
      ...(input.decoupled ? { psuId: input.decoupled.psuId } : {}),
      ...(input.embedded ? { embedded: true } : {}),
    });
    consent.embeddedLinks.start = created.embeddedStartUrl ?? null;
    consent.oauth = created.oauth;
    consent.sca = {
      consentId: input.consentId,
      state: input.state,
      scaRedirectUrl: created.scaRedirectUrl,
      psuMessage: created.psuMessage,
      scaDeadline: input.scaDeadline,
    };
    return undefined;
  } catch (error) {
    consent.startFailure = bankStartRefusal(error, 'the bank consent', {
      refused: ConsentStartRefusal.bankRefused,
      unavailable: ConsentStartRefusal.bankUnavailable,
    });
    return consent.startFailure;
  }
}
