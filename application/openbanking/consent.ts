import { randomBytes } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { digestOf, isLiveUserOf, type UserIdentity } from '../../credentials/openbanking/identity.ts';
import { AUDIENCE, verifyJwt } from '../../credentials/openbanking/jws.ts';
import { scaSecretSubject } from '../../credentials/openbanking/sca-secrets.ts';
import type { Database } from '../../db/client.ts';
import { obConsents } from '../../db/schema/openbanking.ts';
import { CONSENT_SCOPES, type ConsentKind, type ConsentScope } from '../../domain/openbanking/consents.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import {
  type ConsentFlowInput,
  ConsentStartRefusal,
  consentEmbeddedScaUpdate,
  consentStartedUpdate,
  consentWorkflowId,
  EmbeddedScaRefusal,
  type EmbeddedScaRequest,
  type EmbeddedScaView,
  embeddedStepOf,
  openBankingSearchAttributes,
} from '../../domain/openbanking/processes.ts';
import type { EmbeddedScaInput } from '../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import type { Config } from '../../platform/config.ts';
import type { consentAuthorisation } from '../../workflows/openbanking/index.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { findUserAccount } from './accounts.ts';
import { type BankRow, type BankView, findBank, findBankRow, listBanks } from './banks.ts';
import { sendHeldScaStep } from './held-sca-steps.ts';
import { findUsableHook } from './hooks.ts';
import { paymentAuthorizationOf } from './payment/read.ts';
import { callbackUrlsOf, type FlowOrigin, psuOf } from './psu.ts';

/**
 * Consents: starting one (POST consent, the AIS link page, payment/sca) is one Update-with-start of the
 * consent workflow (`ob-consent-<consentId>`, keyed by the consent's row id, never by the `state`) that
 * answers once the bank consent exists, with the bank's SCA page. The rest (the user's SCA, the bank's
 * callback, reading the accounts, the hook) happens in the workflow; see docs/openbanking.md.
 */

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
export const MAX_VALIDITY_DAYS = 365;

export interface ConsentRequest {
  bankHash: string;
  hookHash?: string | undefined;
  app: string;
  kind: ConsentKind;
  access: ConsentScope[];
  ibans: string[];
  validUntil?: string | undefined;
  frequencyPerDay?: number | undefined;
  recurring?: boolean | undefined;
  psuId?: string | undefined;
}

export interface ConsentStarted {
  consentId: string;
  state: string;
  status: 'AWAITING_SCA';
  kind: ConsentKind;
  bankHash: string;
  scaRedirectUrl: string | null;
  /** EMBEDDED: the user's credentials, method and code go through PUT consent/{consentId}/sca. */
  scaMethod: 'REDIRECT' | 'DECOUPLED' | 'EMBEDDED';
  psuMessage: string | null;
  scaDeadline: string;
  validUntil: string;
  frequencyPerDay: number;
  callbackUrl: string;
}

/** The consent's terms as the request's own rules settle them, each refusal naming its field. */
function termsOf(config: Config, body: ConsentRequest) {
  const today = new Date();
  const validUntil =
    body.validUntil ?? isoDay(new Date(today.getTime() + config.OPENBANKING_CONSENT_VALIDITY));
  const latest = isoDay(new Date(today.getTime() + MAX_VALIDITY_DAYS * 86_400_000));
  if (Number.isNaN(Date.parse(`${validUntil}T00:00:00Z`)))
    throw Refusal.field('validUntil', 'not a calendar date');
  if (validUntil < isoDay(today)) throw Refusal.field('validUntil', 'must not be in the past');
  if (validUntil > latest)
    throw Refusal.field('validUntil', `must be at most ${MAX_VALIDITY_DAYS} days ahead`);
  const oneShot = body.kind === 'account-list';
  const recurring = oneShot ? false : (body.recurring ?? true);
  const frequencyPerDay = recurring ? (body.frequencyPerDay ?? 4) : 1;
  if (!recurring && body.frequencyPerDay !== undefined && body.frequencyPerDay !== 1)
    throw Refusal.field('frequencyPerDay', 'must be 1 for a consent that is not recurring');
  return { validUntil, oneShot, recurring, frequencyPerDay };
}

/** The bank and how it authenticates the user; the hook must be the user's (or its agent's). */
async function bankOf(db: Database, user: UserIdentity, body: ConsentRequest) {
  const bank = await findBankRow(db, body.bankHash);
  // Embedded (decision 0061): the user's steps come through PUT consent/{consentId}/sca, relayed to
  // the bank by the workflow; the password and codes are never stored.
  const embedded = bank.bankFlowType === 'embedded';
  const decoupled = bank.bankFlowType === 'decoupled';
  if (decoupled && !body.psuId)
    throw Refusal.field('psuId', `required: ${bank.name} asks the user in its app (decoupled SCA)`);
  if (body.hookHash && !(await findUsableHook(db, user, body.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');
  return { bank, embedded, decoupled };
}

/** The Update-with-start of the consent's workflow; the bank's refusal becomes 502/503. */
async function startAuthorisation(
  deps: UseCaseDeps,
  input: ConsentFlowInput,
  search: { user: UserIdentity; bank: BankRow },
) {
  const { config, temporal } = deps;
  const { user, bank } = search;
  try {
    return await temporal.workflow.executeUpdateWithStart(consentStartedUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation<typeof consentAuthorisation>(
        'consentAuthorisation',
        {
          workflowId: consentWorkflowId(input.consentId),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowIdConflictPolicy: 'FAIL',
          args: [input],
          typedSearchAttributes: [
            ...openBankingSearchAttributes({ ...user, bankHash: bank.bankHash }),
            { key: BusinessStatus, value: 'AWAITING_SCA' },
          ],
          staticSummary: `Consent ${input.consentId} (${input.kind}) of user ${user.userId} at ${bank.name}`,
        },
      ),
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      if (error.cause.type === ConsentStartRefusal.bankRefused)
        throw new Refusal(
          502,
          'bank_refused',
          `The bank refused the consent request: ${error.cause.message}`,
        );
      if (error.cause.type === ConsentStartRefusal.bankUnavailable)
        throw new Refusal(503, 'bank_unavailable', 'The bank could not be reached; try again later');
    }
    throw error;
  }
}

/**
 * Starts a consent for `user`: checks the request, records the consent, and runs the Update-with-start
 * that answers once the bank consent exists. Throws Refusal (502 bank_refused, 503 bank_unavailable).
 */
export async function startConsent(
  deps: UseCaseDeps,
  { user, request: body, origin }: { user: UserIdentity; request: ConsentRequest; origin: FlowOrigin },
): Promise<ConsentStarted> {
  const { db, config } = deps;
  const psu = psuOf(origin.psu);
  const { validUntil, oneShot, recurring, frequencyPerDay } = termsOf(config, body);
  const { bank, embedded, decoupled } = await bankOf(db, user, body);

  const consentId = newId('con');
  const state = randomBytes(32).toString('base64url');
  const scaDeadline = new Date(Date.now() + config.OPENBANKING_SCA_TIMEOUT);
  await db.insert(obConsents).values({
    id: consentId,
    // The state is a credential of the callback: only its digest is stored (the callback looks it up).
    stateDigest: digestOf(state),
    app: body.app,
    agentId: user.agentId,
    userId: user.userId,
    bankHash: bank.bankHash,
    hookHash: body.hookHash ?? null,
    kind: body.kind,
    scopes: oneShot ? ['accounts'] : [...new Set(['accounts' as const, ...body.access])],
    requestedIbans: oneShot ? [] : [...new Set(body.ibans)],
    recurring,
    validUntil,
    frequencyPerDay,
    status: 'AWAITING_SCA',
    scaDeadline,
  });

  const callback = callbackUrlsOf(origin.baseUrl, body.app, state);
  const started = await startAuthorisation(
    deps,
    {
      consentId,
      state,
      kind: body.kind,
      ...callback,
      ...(psu ? { psu } : {}),
      scaDeadline: scaDeadline.toISOString(),
      bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
      ...(decoupled && body.psuId
        ? { decoupled: { psuId: body.psuId, pollMs: config.OPENBANKING_DECOUPLED_POLL_INTERVAL } }
        : {}),
      ...(embedded ? { embedded: true as const } : {}),
    },
    { user, bank },
  );
  return {
    consentId,
    state,
    status: 'AWAITING_SCA',
    kind: body.kind,
    bankHash: bank.bankHash,
    scaRedirectUrl: started.scaRedirectUrl,
    scaMethod: decoupled ? 'DECOUPLED' : embedded ? 'EMBEDDED' : 'REDIRECT',
    psuMessage: started.psuMessage,
    scaDeadline: started.scaDeadline,
    validUntil,
    frequencyPerDay,
    callbackUrl: callback.redirectUri,
  };
}

// ─── Embedded SCA of a consent (PUT consent/{consentId}/sca) ────────────────────────────────────

const EMBEDDED_REFUSALS: Record<string, (message: string) => Refusal> = {
  [EmbeddedScaRefusal.notAwaiting]: (message) => Refusal.conflict('consent_not_awaiting_sca', message),
  [EmbeddedScaRefusal.credentialsInvalid]: (message) => new Refusal(422, 'psu_credentials_invalid', message),
  [EmbeddedScaRefusal.codeExpired]: (message) => new Refusal(422, 'sca_code_expired', message),
  [EmbeddedScaRefusal.bankRefused]: (message) => new Refusal(502, 'bank_refused', message),
  [EmbeddedScaRefusal.bankUnavailable]: () =>
    new Refusal(503, 'bank_unavailable', 'The bank could not be reached; try again later'),
  [EmbeddedScaRefusal.stepExpired]: (message) => Refusal.conflict('sca_step_expired', message),
};

/**
 * One step of a consent's embedded SCA (decision 0061): the user's id and password at the bank, the
 * method they choose, or the one-time code, relayed to the bank by the consent's workflow (one Update);
 * the answer says where the SCA stands and what comes next. The id, password and code wait sealed in
 * ob_sca_secrets until the activity takes them, never in the engine (decision 0068). Throws Refusal:
 * 404 another user's or unknown consent, 409 `consent_not_awaiting_sca`, 409 `sca_step_expired` (give
 * the step again), 422 `psu_credentials_invalid` / `sca_code_expired`, 502 `bank_refused`, 503
 * `bank_unavailable`.
 */
export async function continueEmbeddedSca(
  deps: UseCaseDeps,
  {
    user,
    consentId,
    step,
    origin,
  }: { user: UserIdentity; consentId: string; step: EmbeddedScaInput; origin: FlowOrigin },
): Promise<EmbeddedScaView & { consentId: string }> {
  const { db, temporal } = deps;
  const [row] = await db
    .select({ id: obConsents.id, userId: obConsents.userId, status: obConsents.status })
    .from(obConsents)
    .where(eq(obConsents.id, consentId));
  if (!row || row.userId !== user.userId) throw Refusal.notFound('Consent');
  if (row.status !== 'AWAITING_SCA')
    throw Refusal.conflict('consent_not_awaiting_sca', `The consent is ${row.status}`);
  const psu = psuOf(origin.psu);
  const send = (request: EmbeddedScaRequest) =>
    temporal.workflow
      .getHandle(consentWorkflowId(consentId))
      .executeUpdate(consentEmbeddedScaUpdate, { args: [{ ...request, ...(psu ? { psu } : {}) }] });
  const kind = embeddedStepOf(step);
  try {
    // The user id, password and code do not cross the engine (decision 0068); the method choice does.
    const view =
      kind === 'method'
        ? await send(step)
        : await sendHeldScaStep(deps, scaSecretSubject.consent(consentId), { ...step }, (secretRef) =>
            send({ step: kind, secretRef }),
          );
    return { consentId, ...view };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const refusal = EMBEDDED_REFUSALS[error.cause.type ?? ''];
      if (refusal) throw refusal(error.cause.message);
    }
    if (error instanceof WorkflowNotFoundError)
      throw Refusal.conflict('consent_not_awaiting_sca', 'The consent is no longer waiting');
    throw error;
  }
}

// ─── Payment authorization of an added account (POST payment/sca/{ibanId}) ──────────────────────

export interface PaymentScaInstructions {
  ibanId: string;
  authorized: boolean;
  action: 'none' | 'redirect';
  scaRedirectUrl: string | null;
  scaDeadline: string | null;
  consentId: string | null;
  state: string | null;
}

/**
 * How to obtain the payment authorization of an account: authorized already, nothing is started;
 * otherwise a new consent for exactly that account at its bank (decision 0033).
 */
export async function startPaymentAuthorization(
  deps: UseCaseDeps,
  {
    user,
    ibanId,
    origin,
    ...options
  }: {
    user: UserIdentity;
    ibanId: string;
    hookHash?: string | undefined;
    app?: string | undefined;
    origin: FlowOrigin;
  },
): Promise<PaymentScaInstructions> {
  const { account, consent, bank } = await findUserAccount(deps.db, user.userId, ibanId);
  if (paymentAuthorizationOf(account, consent).authorized)
    return {
      ibanId: account.id,
      authorized: true,
      action: 'none',
      scaRedirectUrl: null,
      scaDeadline: null,
      consentId: null,
      state: null,
    };
  // These instructions are a page to send the browser to; an embedded bank has none (decision 0061).
  if (bank.bankFlowType === 'embedded')
    throw Refusal.conflict(
      'sca_flow_not_supported',
      `${bank.name} authenticates embedded: POST consent, then PUT consent/{consentId}/sca`,
    );
  const started = await startConsent(deps, {
    user,
    request: {
      bankHash: bank.bankHash,
      app: options.app ?? 'web',
      kind: 'ais',
      access: ['accounts', 'balances', 'transactions'],
      ibans: [account.iban],
      ...(options.hookHash ? { hookHash: options.hookHash } : {}),
    },
    origin,
  });
  return {
    ibanId: account.id,
    authorized: false,
    action: 'redirect',
    scaRedirectUrl: started.scaRedirectUrl,
    scaDeadline: started.scaDeadline,
    consentId: started.consentId,
    state: started.state,
  };
}

// ─── The AIS link (POST /api/8/agent/ais/email) ─────────────────────────────────────────────────

interface AisLinkClaims {
  user: UserIdentity;
  hookHash: string | undefined;
  bankHash: string | undefined;
}

/** The live user and the choices of a valid, unexpired AIS link token; undefined otherwise. */
async function aisLinkClaims(
  deps: UseCaseDeps,
  token: string | undefined,
): Promise<AisLinkClaims | undefined> {
  if (!token || token.length > 4000) return undefined;
  const payload = await verifyJwt(deps.db, deps.config, token, AUDIENCE.aisLink);
  if (!payload?.sub || typeof payload.agent !== 'string') return undefined;
  const user = { userId: payload.sub, agentId: payload.agent };
  if (!(await isLiveUserOf(deps.db, user))) return undefined;
  return {
    user,
    hookHash: typeof payload.hookHash === 'string' ? payload.hookHash : undefined,
    bankHash: typeof payload.bankHash === 'string' ? payload.bankHash : undefined,
  };
}

/**
 * The banks the AIS link page offers (the link's bank, or every active bank when it names none or an
 * unknown one); undefined when the link is not valid. Creates nothing.
 */
export async function aisLinkBanks(
  deps: UseCaseDeps,
  { token }: { token: string | undefined },
): Promise<BankView[] | undefined> {
  const claims = await aisLinkClaims(deps, token);
  if (!claims) return undefined;
  try {
    return claims.bankHash ? [await findBank(deps, { bankHash: claims.bankHash })] : await listBanks(deps);
  } catch {
    return listBanks(deps);
  }
}

export type AisLinkStart =
  | { outcome: 'invalid_link' }
  | { outcome: 'no_bank' }
  | { outcome: 'started'; scaRedirectUrl: string };

/**
 * The AIS link page's button: starts the consent as POST consent does, with the link's hook and bank
 * (else the chosen one). The page takes no bank user id, so decoupled banks are 400. Throws Refusal.
 */
export async function startAisLinkConsent(
  deps: UseCaseDeps,
  { origin, ...request }: { token: string | undefined; bankHash: string | undefined; origin: FlowOrigin },
): Promise<AisLinkStart> {
  const claims = await aisLinkClaims(deps, request.token);
  if (!claims) return { outcome: 'invalid_link' };
  const bankHash = claims.bankHash ?? request.bankHash ?? '';
  if (!/^[0-9a-f]{24}$/.test(bankHash)) return { outcome: 'no_bank' };
  const started = await startConsent(deps, {
    user: claims.user,
    request: {
      bankHash,
      ...(claims.hookHash ? { hookHash: claims.hookHash } : {}),
      app: 'ais-link',
      kind: 'ais',
      access: [...CONSENT_SCOPES],
      ibans: [],
    },
    origin,
  });
  if (!started.scaRedirectUrl)
    throw Refusal.field('bankHash', 'this bank has no page to send you to; use POST consent');
  return { outcome: 'started', scaRedirectUrl: started.scaRedirectUrl };
}
