import { condition, setHandler } from '@temporalio/workflow';
import { bankCallbackSignal } from '../../../domain/openbanking/processes.ts';
import type { ConsentProcess } from './state.ts';

/**
 * Redirect SCA (and OAuth2, oauth2.ts): the user authenticates on the bank's page, and the bank sends
 * the browser back to the gateway's callback (bankCallbackSignal).
 */
export function handleBankCallback(consent: ConsentProcess): void {
  // Only the first callback counts; a repeated or late one is harmless.
  setHandler(bankCallbackSignal, (received) => {
    consent.callback ??= received;
  });
}

/** The user came back from the bank before the deadline (true), or not (false); the gateway may end it first. */
export async function redirectScaEnded(consent: ConsentProcess): Promise<boolean> {
  const remainingMs = consent.scaTimeLeftMs();
  return (
    remainingMs > 0 && (await condition(() => consent.callback !== undefined || consent.ended, remainingMs))
  );
}
