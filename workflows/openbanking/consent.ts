import { setHandler } from '@temporalio/workflow';
import { type ConsentState, outcomeOfBankStatus } from '../../domain/openbanking/consents.ts';
import { type ConsentFlowInput, consentEndedSignal } from '../../domain/openbanking/processes.ts';
import { listAccounts, startRefreshes, storeAccounts } from './consent/accounts.ts';
import { readBankConsentStatus } from './consent/activities.ts';
import { decoupledScaEnded } from './consent/decoupled.ts';
import { embeddedScaEnded, handleEmbeddedSca } from './consent/embedded.ts';
import { exchangeOAuth2Code } from './consent/oauth2.ts';
import { handleBankCallback, redirectScaEnded } from './consent/redirect.ts';
import { createBankConsent, handleStart } from './consent/start.ts';
import { ConsentProcess } from './consent/state.ts';

/**
 * One consent with its strong customer authentication (SCA) at the bank (`ob-consent-<consentId>`):
 * create the bank consent → hand the SCA page to the caller → wait for the user to come back from the
 * bank (or give up after OPENBANKING_SCA_TIMEOUT) → ask the bank how the SCA ended → store the
 * accounts, balances and transactions → call the hook with the outcome → hand an ACTIVE consent to its
 * scheduled refreshes (consent-refresh.ts). Its state is one ConsentProcess (consent/state.ts), its
 * Updates, Signals and SCA approaches are phases of their own (consent/*.ts).
 */
export async function consentAuthorisation(input: ConsentFlowInput): Promise<ConsentState> {
  const consent = new ConsentProcess(input);
  handleStart(consent);
  handleEmbeddedSca(consent);
  handleBankCallback(consent);
  // The gateway ended the consent (its user was deleted): it is TERMINATED already, no hook.
  setHandler(consentEndedSignal, () => {
    consent.ended = true;
  });

  // 1. The bank consent, and the SCA page the user is sent to.
  const refusal = await createBankConsent(consent);
  if (refusal) return consent.finish('FAILED', refusal.message);

  // 2. The user authenticates at the bank, by the bank's approach: redirect (or OAuth2), the bank
  // sends the browser back; decoupled, the user approves in the bank's app; embedded, the user's steps
  // are relayed to the bank.
  const authenticated = input.decoupled
    ? await decoupledScaEnded(consent, input.decoupled.pollMs)
    : input.embedded
      ? await embeddedScaEnded(consent)
      : await redirectScaEnded(consent);
  if (consent.ended) return consent.stop();
  if (!authenticated) {
    await consent.terminateAtBank();
    return consent.finish('ABANDONED', 'the user did not complete the authentication at the bank in time');
  }
  await exchangeOAuth2Code(consent);

  // 3. The bank, not the browser, says how the authentication ended.
  const bankStatus = await readBankConsentStatus(consent.ids);
  const outcome = outcomeOfBankStatus(bankStatus);
  if (outcome !== 'ACTIVE') {
    if (bankStatus === 'received') await consent.terminateAtBank();
    return consent.finish(outcome, `the bank reports the consent as ${bankStatus}`);
  }

  // 4. Read what the consent grants into the read model.
  if (input.kind === 'account-list') return listAccounts(consent);
  const accounts = await storeAccounts(consent);
  if (!accounts) return 'FAILED';
  if (consent.ended) return consent.stop();
  await consent.finish('ACTIVE', null, accounts);
  // 5. From now on the read model is kept fresh on a schedule, until the consent ends.
  await startRefreshes(consent);
  return 'ACTIVE';
}
