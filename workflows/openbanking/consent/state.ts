import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ConsentOutcome, ConsentState } from '../../../domain/openbanking/consents.ts';
import type {
  BankCallback,
  ConsentFlowInput,
  ScaStart,
  StoredAccount,
} from '../../../domain/openbanking/processes.ts';
import type { OAuthScaPending, ScaStatus } from '../../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../../domain/search-attributes.ts';
import { sendWebhook } from '../../webhooks/send.ts';
import { bankCallsWaitedFor } from '../activities.ts';
import { unlessRefused, unrecordableReason } from '../data-refusal.ts';
import { prepareConsentWebhook, recordConsentOutcome, terminateBankConsent } from './activities.ts';

/** Embedded SCA (decision 0061): the bank's links for the next step the user gives. */
export interface EmbeddedLinks {
  start: string | null;
  select: string | null;
  authorise: string | null;
}

/**
 * One consent's process state: its status, what the bank and the user have said so far, and the moves
 * that end it (`finish` with an outcome and its hook, `stop` when the gateway ended it). The phases
 * (start.ts, redirect.ts, oauth2.ts, embedded.ts, decoupled.ts, accounts.ts) are functions over it.
 */
export class ConsentProcess {
  status: ConsentState = 'AWAITING_SCA';
  /** The SCA page (or message) consentStartedUpdate answers, once the bank consent exists. */
  sca: ScaStart | undefined;
  /** Why the bank consent could not be created (consentStartedUpdate answers it once recorded). */
  startFailure: ApplicationFailure | undefined;
  /** The bank sent the browser back (redirect, OAuth2): only the first callback counts. */
  callback: BankCallback | undefined;
  outcomeRecorded = false;
  /** The gateway ended the consent (its user was deleted): it is TERMINATED already, no hook. */
  ended = false;
  readonly embeddedLinks: EmbeddedLinks = { start: null, select: null, authorise: null };
  /** How the embedded SCA ended at the bank. */
  embeddedEnded: ScaStatus | undefined;
  /** OAuth2 SCA (decision 0067): the authorisation request's code_verifier and state, until the callback. */
  oauth: OAuthScaPending | undefined;
  /** The bank calls the API waits for (the bank consent's creation, an embedded step). */
  readonly bank: ReturnType<typeof bankCallsWaitedFor>;

  constructor(readonly input: ConsentFlowInput) {
    this.bank = bankCallsWaitedFor(input.bankRequestTimeoutMs);
  }

  get ids(): { consentId: string } {
    return { consentId: this.input.consentId };
  }

  /** The time left for the SCA until the consent's deadline (none left: zero or less). */
  scaTimeLeftMs(): number {
    return Date.parse(this.input.scaDeadline) - Date.now();
  }

  terminateAtBank(): Promise<void> {
    return terminateBankConsent(this.ids);
  }

  /** The gateway ended the consent: TERMINATED, the bank consent ended, no hook. */
  async stop(): Promise<ConsentState> {
    this.status = 'TERMINATED';
    upsertSearchAttributes([{ key: BusinessStatus, value: this.status }]);
    await this.terminateAtBank();
    await condition(allHandlersFinished);
    return this.status;
  }

  /** Ends the consent with its outcome: recorded in the read model, then the hook is called. */
  async finish(outcome: ConsentOutcome, reason: string | null, accounts: StoredAccount[] = []) {
    this.status = outcome;
    upsertSearchAttributes([{ key: BusinessStatus, value: outcome }]);
    // A reason the database refuses (the bank's text, issue 20): the outcome is recorded without it.
    await unlessRefused(
      `the outcome ${outcome} of the consent`,
      this.ids,
      () => recordConsentOutcome({ ...this.ids, status: outcome, reason }),
      async (refusal) => {
        if (reason === null) throw ApplicationFailure.nonRetryable(refusal);
        await recordConsentOutcome({ ...this.ids, status: outcome, reason: unrecordableReason(refusal) });
      },
    );
    this.outcomeRecorded = true;
    const webhook = await prepareConsentWebhook({
      ...this.ids,
      state: this.input.state,
      status: outcome,
      reason,
      accounts,
    });
    if (webhook) await sendWebhook(webhook);
    await condition(allHandlersFinished);
    return outcome;
  }
}
