import { ParentClosePolicy, startChild, workflowInfo } from '@temporalio/workflow';
import type { ConsentState } from '../../../domain/openbanking/consents.ts';
import { consentRefreshWorkflowId, type StoredAccount } from '../../../domain/openbanking/processes.ts';
import { consentRefresh } from '../consent-refresh.ts';
import { unlessRefused } from '../data-refusal.ts';
import { storeAccountList, storeConsentAccounts } from './activities.ts';
import type { ConsentProcess } from './state.ts';

/**
 * What an ACTIVE consent grants, read into the read model. Bank data the database refuses for good
 * (issue 20) ends the consent FAILED with the reason, and the bank consent with it.
 */
const unstorable = (consent: ConsentProcess) => async (refusal: string) => {
  await consent.terminateAtBank();
  await consent.finish('FAILED', `the accounts could not be stored: ${refusal}`);
  return undefined;
};

/** A one-shot account list: read once, so the bank consent is ended at once. */
export async function listAccounts(consent: ConsentProcess): Promise<ConsentState> {
  const stored = await unlessRefused(
    'the account list of the consent',
    consent.ids,
    async () => {
      await storeAccountList(consent.ids);
      return true;
    },
    unstorable(consent),
  );
  if (!stored) return 'FAILED';
  await consent.terminateAtBank();
  return consent.finish('ACTIVE', null);
}

/** The consent's accounts, balances and transactions; none when the consent ended FAILED on them. */
export function storeAccounts(consent: ConsentProcess): Promise<StoredAccount[] | undefined> {
  return unlessRefused(
    'the accounts of the consent',
    consent.ids,
    () => storeConsentAccounts(consent.ids),
    unstorable(consent),
  );
}

/** From now on the read model is kept fresh on a schedule (consent-refresh.ts), until the consent ends. */
export async function startRefreshes(consent: ConsentProcess): Promise<void> {
  const { consentId } = consent.input;
  await startChild(consentRefresh, {
    workflowId: consentRefreshWorkflowId(consentId),
    args: [{ consentId, reads: { day: new Date().toISOString().slice(0, 10), reads: 1 } }],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
    staticSummary: `Scheduled refreshes of consent ${consentId}`,
  });
}
