import { WorkflowNotFoundError } from '@temporalio/common';
import { and, eq, isNull } from 'drizzle-orm';
import { digestOf } from '../../credentials/openbanking/identity.ts';
import { obConsents, obHooks } from '../../db/schema/openbanking.ts';
import { APP_PATTERN, STATE_PATTERN } from '../../domain/openbanking/consents.ts';
import { bankCallbackSignal, consentWorkflowId } from '../../domain/openbanking/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { bulkBankCallback } from './bulk-payment/callback.ts';
import { paymentBankCallback } from './payment/callback.ts';

/**
 * The bank's callback at the end of a user's authorisation (`/redirect/{app}/state/{state}`). The
 * `state` is the credential: only its SHA-256 digest is stored, the consent's (else a payment's, else a
 * bulk's) row is looked up by the digest, and its workflow signalled by its own id (the state is never
 * in a workflow id). The workflow then asks the bank how the SCA ended: the browser's word is not trusted.
 */

export interface BankCallback {
  app: string;
  state: string;
  /** The bank used the Nok redirect (`?outcome=nok`). */
  nok: boolean;
  /** The return from a payment cancellation's own SCA (`?sca=cancellation`, decision 0070). */
  cancellation?: boolean;
  /**
   * The form the bank posts (or, for OAuth2 SCA, the query of its redirect: `code`, `state`, `error`):
   * read only for a consent, and only once the consent is known.
   */
  form: () => Promise<Record<string, unknown>>;
}

/** Where the browser goes on: the hook's redirectUrl (or null); undefined when no flow has the state. */
export async function receiveBankCallback(
  deps: UseCaseDeps,
  callback: BankCallback,
): Promise<{ redirectUrl: string | null } | undefined> {
  const { app, state, nok } = callback;
  if (!STATE_PATTERN.test(state) || !APP_PATTERN.test(app)) return undefined;
  const { db, temporal, logger } = deps;
  const [row] = await db
    .select({ consent: obConsents, redirectUrl: obHooks.redirectUrl })
    .from(obConsents)
    .leftJoin(obHooks, eq(obHooks.hookHash, obConsents.hookHash))
    .where(and(eq(obConsents.stateDigest, digestOf(state)), eq(obConsents.app, app)))
    .limit(1);
  if (!row) {
    // Not a consent's state: a payment's or a bulk payment's SCA may have ended.
    return (
      (await paymentBankCallback(deps, { app, state, nok, cancellation: callback.cancellation === true })) ??
      (await bulkBankCallback(deps, { app, state, nok }))
    );
  }

  // The form the bank posts carries its consent id and status; both are only hints.
  const form = await callback.form();
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, 100) : null);
  await db
    .update(obConsents)
    .set({ callbackAt: new Date() })
    .where(and(eq(obConsents.id, row.consent.id), isNull(obConsents.callbackAt)));
  try {
    await temporal.workflow.getHandle(consentWorkflowId(row.consent.id)).signal(bankCallbackSignal, {
      nok,
      bankConsentId: text(form.consentId),
      reportedStatus: text(form.consentStatus),
      // OAuth2 SCA (decision 0067): the code goes to the workflow only (sealed there), never stored.
      ...(typeof form.code === 'string' && form.code.length <= 2048
        ? { code: form.code, oauthState: text(form.state) }
        : {}),
    });
  } catch (error) {
    // The consent already ended (abandoned, or a repeated callback): the user is still sent on.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ consentId: row.consent.id }, 'bank callback after the consent ended');
  }
  return { redirectUrl: row.redirectUrl };
}
