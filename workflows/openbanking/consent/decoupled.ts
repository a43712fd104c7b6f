import { condition, patched } from '@temporalio/workflow';
import { DECOUPLED_BACKOFF_PATCH, decoupledPollDelayMs } from '../../../domain/openbanking/xs2a.ts';
import { readBankConsentStatus } from './activities.ts';
import type { ConsentProcess } from './state.ts';

/**
 * Decoupled SCA: the user approves in the bank's app, and the gateway reads the consent at the bank
 * until it leaves `received` (true), or the deadline passes (false), the reads backing off from the
 * configured interval; the gateway may end the consent meanwhile.
 */
export async function decoupledScaEnded(consent: ConsentProcess, pollMs: number): Promise<boolean> {
  const deadline = Date.parse(consent.input.scaDeadline);
  // The reads back off (decision 0061); a history recorded before that polls at the fixed interval.
  const backoff = patched(DECOUPLED_BACKOFF_PATCH);
  for (let attempt = 0; Date.now() < deadline; attempt += 1) {
    const wait = backoff ? decoupledPollDelayMs(pollMs, attempt) : pollMs;
    if (await condition(() => consent.ended, Math.min(wait, Math.max(1, deadline - Date.now())))) return true;
    if ((await readBankConsentStatus(consent.ids)) !== 'received') return true;
  }
  return false;
}
