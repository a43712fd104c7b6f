import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Context } from 'hono';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { Refusal } from '../../application/shared/refusal.ts';
import { digestOf, type UserIdentity } from '../../credentials/openbanking/identity.ts';
import { obConsents } from '../../db/schema/openbanking.ts';
import { canonicalIp } from '../../domain/client-address.ts';
import { APP_PATTERN, CONSENT_KINDS, CONSENT_SCOPES } from '../../domain/openbanking/consents.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import {
  type ConsentFlowInput,
  ConsentStartRefusal,
  consentStartedUpdate,
  consentWorkflowId,
  openBankingSearchAttributes,
} from '../../domain/openbanking/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import type { consentAuthorisation } from '../../workflows/openbanking/index.ts';
import { callerAddress } from '../shared/caller-address.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankHashParam, findBank } from './bank-records.ts';
import { findUsableHook } from './hook-records.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { publicBaseUrl } from './public-url.ts';

/**
 * `POST /api/{6,7,8}/consent`: starts adding the user's bank accounts. One Update-with-start of the
 * consent workflow (`ob-consent-<consentId>`, keyed by the consent's row id, never by the `state`): the answer comes once the bank consent exists, with the
 * bank's SCA page to send the user's browser to. The rest (the user's SCA, the bank's callback, reading
 * the accounts, the hook) happens in the workflow; see docs/openbanking.md, "Consents and SCA".
 */

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const MAX_VALIDITY_DAYS = 365;

const ibanField = z
  .string()
  .max(64)
  .transform((value) => electronicFormatIBAN(value) ?? value)
  .refine((value) => isValidIBAN(value), 'not a valid IBAN');

const consentBody = z
  .object({
    bankHash: bankHashParam.openapi({ param: undefined, description: 'The bank, from GET banks' }),
    hookHash: z.string().min(1).max(100).optional().openapi({
      description: 'A hook of the user or its agent (createhook): called back when the consent ends',
    }),
    app: z
      .string()
      .regex(APP_PATTERN, 'lower-case letters, digits and dashes, at most 32')
      .default('web')
      .openapi({
        description: 'Your application’s name in the bank callback path /redirect/{app}/state/{state}',
        example: 'web',
      }),
    kind: z
      .enum(CONSENT_KINDS)
      .default('ais')
      .openapi({
        description:
          '`ais`: accounts, balances and transactions, read again later (recurring); `account-list`: a one-shot consent ' +
          'that only lists the user’s accounts with owner names (GET /api/8/account-list), ended right after',
        example: 'ais',
      }),
    access: z
      .array(z.enum(CONSENT_SCOPES))
      .min(1)
      .max(3)
      .default([...CONSENT_SCOPES])
      .openapi({
        description: 'What to read (`accounts` is always included)',
        example: ['accounts', 'balances', 'transactions'],
      }),
    ibans: z
      .array(ibanField)
      .max(50)
      .default([])
      .openapi({ description: 'Only these accounts; empty: the user chooses at the bank', example: [] }),
    validUntil: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
      .optional()
      .openapi({
        description: `Last day of the consent; default OPENBANKING_CONSENT_VALIDITY (90 days), at most ${MAX_VALIDITY_DAYS} days`,
        example: '2027-02-21',
      }),
    frequencyPerDay: z.number().int().min(1).max(100).optional().openapi({
      description: 'Reads a day without the user present (default 4; 1 when not recurring)',
      example: 4,
    }),
    recurring: z.boolean().optional().openapi({
      description: 'Read repeatedly (default true); false allows one read (frequencyPerDay 1)',
      example: true,
    }),
    psuId: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .openapi({
        description:
          'The user’s id at the bank: required by banks with the `decoupled` flow (the bank asks the user in its app), ' +
          'ignored otherwise',
        example: 'alice',
      }),
  })
  .openapi('ConsentRequest');

const consentStartedSchema = z
  .object({
    consentId: z.string().openapi({ example: 'con_0f8fad5b...' }),
    state: z
      .string()
      .openapi({ description: 'Unique; appended to your hook call and redirectUrl', example: 'Yk3n...' }),
    status: z.literal('AWAITING_SCA'),
    kind: z.enum(CONSENT_KINDS),
    bankHash: z.string(),
    scaRedirectUrl: z.string().nullable().openapi({
      description:
        'Send the user’s browser here (the bank’s SCA page); null when the bank’s flow is decoupled',
    }),
    scaMethod: z.enum(['REDIRECT', 'DECOUPLED']).openapi({
      description:
        'REDIRECT: the bank’s page; DECOUPLED: the user approves in the bank’s app (see psuMessage)',
    }),
    psuMessage: z.string().nullable().openapi({ description: 'What the bank tells the user (decoupled)' }),
    scaDeadline: z
      .string()
      .openapi({ description: 'The authentication must be done by then, else ABANDONED' }),
    validUntil: z.string(),
    frequencyPerDay: z.number().int(),
    callbackUrl: z.string().openapi({ description: 'Where the bank sends the user back (the gateway)' }),
  })
  .openapi('ConsentStarted');

/**
 * The user's address and browser, forwarded to the bank (the user is present while starting) as
 * `PSU-IP-Address` and `PSU-User-Agent`. The address is the integrator's `x-psu-ip-address` header
 * (its backend knows its customer's address; an invalid one is 400), else the caller's address:
 * the socket's peer, or the client named in X-Forwarded-For when that peer is one of TRUSTED_PROXIES
 * (domain/client-address.ts). Never a forwarding header from anyone else.
 */
export function psuOf(c: Context<AppEnv>, userAgent: string | undefined) {
  const given = c.req.header('x-psu-ip-address');
  let ipAddress: string | undefined;
  if (given !== undefined) {
    ipAddress = canonicalIp(given);
    if (!ipAddress) throw Refusal.field('x-psu-ip-address', 'must be an IPv4 or IPv6 address');
  } else {
    ipAddress = callerAddress(c);
  }
  if (!ipAddress) return undefined;
  return { ipAddress, ...(userAgent ? { userAgent } : {}) };
}

export const consentOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/consent',
      operationId: 'createConsent',
      tags: ['Account information'],
      summary: 'Create a consent (start adding bank accounts)',
      description:
        'Creates the consent at the bank and answers with `scaRedirectUrl`, the bank’s page where the user logs in ' +
        'and approves. The bank then sends the user back to the gateway, which reads the accounts, balances and ' +
        'transactions, calls the hook (`hookHash`, else the user’s signup `webhookUrl`) with `state` appended and a ' +
        'signed JWS body, and redirects the browser to the hook’s `redirectUrl`. Unknown bank 404; unknown hook 400; ' +
        'bank unreachable 503 `bank_unavailable`; bank refused the request 502 `bank_refused`.',
      security: USER_SECURITY,
      request: {
        headers: z.object({
          'user-agent': z
            .string()
            .max(1000)
            .optional()
            .openapi({ description: 'The user’s browser, forwarded to the bank' }),
          'x-psu-ip-address': z
            .string()
            .max(100)
            .optional()
            .openapi({
              description:
                'The user’s IP address (IPv4 or IPv6), forwarded to the bank as PSU-IP-Address; without it the ' +
                'caller’s address (X-Forwarded-For only from TRUSTED_PROXIES)',
              example: '198.51.100.23',
            }),
        }),
        body: jsonBody(consentBody),
      },
      responses: {
        201: { description: 'Started', content: { 'application/json': { schema: consentStartedSchema } } },
        ...errorResponses,
        409: {
          description: 'The bank’s SCA flow is not supported here',
          content: { 'application/json': { schema: errorBodySchema } },
        },
        502: {
          description: 'The bank refused the consent request',
          content: { 'application/json': { schema: errorBodySchema } },
        },
        503: {
          description: 'The bank could not be reached',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const started = await startConsentFlow(c, user, c.req.valid('json'), c.req.valid('header')['user-agent']);
    return c.json(started, 201);
  },
});

export type ConsentRequestBody = z.infer<typeof consentBody>;
export type ConsentStarted = z.infer<typeof consentStartedSchema>;

/**
 * Starts a consent for `user` (POST consent and the AIS link page): checks the request, records the
 * consent, and runs the Update-with-start that answers once the bank consent exists. Throws Refusal.
 */
export async function startConsentFlow(
  c: Context<AppEnv>,
  user: UserIdentity,
  body: ConsentRequestBody,
  userAgent: string | undefined,
): Promise<ConsentStarted> {
  const { db, config, temporal } = c.get('deps');
  const psu = psuOf(c, userAgent);

  // The request's own rules, each naming its field.
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

  const { row: bank } = await findBank(db, body.bankHash);
  // Embedded SCA of a consent would pass the user's bank password through the gateway: not offered
  // (payments use the bank's own one-time code instead; decision 0033).
  if (bank.bankFlowType === 'embedded')
    throw Refusal.conflict(
      'sca_flow_not_supported',
      `${bank.name} uses the embedded SCA flow for consents; only redirect and decoupled are supported`,
    );
  const decoupled = bank.bankFlowType === 'decoupled';
  if (decoupled && !body.psuId)
    throw Refusal.field('psuId', `required: ${bank.name} asks the user in its app (decoupled SCA)`);
  if (body.hookHash && !(await findUsableHook(db, user, body.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');

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

  const base = publicBaseUrl(c);
  const callbackUrl = `${base}/openbanking/redirect/${body.app}/state/${state}`;
  const input: ConsentFlowInput = {
    consentId,
    state,
    kind: body.kind,
    redirectUri: callbackUrl,
    nokRedirectUri: `${callbackUrl}?outcome=nok`,
    ...(psu ? { psu } : {}),
    scaDeadline: scaDeadline.toISOString(),
    bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
    ...(decoupled && body.psuId
      ? { decoupled: { psuId: body.psuId, pollMs: config.OPENBANKING_DECOUPLED_POLL_INTERVAL } }
      : {}),
  };
  try {
    const started = await temporal.workflow.executeUpdateWithStart(consentStartedUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation<typeof consentAuthorisation>(
        'consentAuthorisation',
        {
          workflowId: consentWorkflowId(consentId),
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowIdConflictPolicy: 'FAIL',
          args: [input],
          typedSearchAttributes: [
            ...openBankingSearchAttributes({ ...user, bankHash: bank.bankHash }),
            { key: BusinessStatus, value: 'AWAITING_SCA' },
          ],
          staticSummary: `Consent ${consentId} (${body.kind}) of user ${user.userId} at ${bank.name}`,
        },
      ),
    });
    return {
      consentId,
      state,
      status: 'AWAITING_SCA' as const,
      kind: body.kind,
      bankHash: bank.bankHash,
      scaRedirectUrl: started.scaRedirectUrl,
      scaMethod: decoupled ? ('DECOUPLED' as const) : ('REDIRECT' as const),
      psuMessage: started.psuMessage,
      scaDeadline: started.scaDeadline,
      validUntil,
      frequencyPerDay,
      callbackUrl,
    };
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
