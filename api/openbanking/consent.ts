import { createRoute, z } from '@hono/zod-openapi';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { MAX_VALIDITY_DAYS, openbanking } from '../../application/openbanking/index.ts';
import { APP_PATTERN, CONSENT_KINDS, CONSENT_SCOPES } from '../../domain/openbanking/consents.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankHashParam } from './bank-schemas.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `POST /api/{6,7,8}/consent`: starts adding the user's bank accounts. One Update-with-start of the
 * consent workflow (`ob-consent-<consentId>`, keyed by the consent's row id, never by the `state`): the answer comes once the bank consent exists, with the
 * bank's SCA page to send the user's browser to. The rest (the user's SCA, the bank's callback, reading
 * the accounts, the hook) happens in the workflow; see docs/openbanking.md, "Consents and SCA". The use
 * case: application/openbanking/consents.ts.
 */

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
    scaMethod: z.enum(['REDIRECT', 'DECOUPLED', 'EMBEDDED']).openapi({
      description:
        'REDIRECT: the bank’s page; DECOUPLED: the user approves in the bank’s app (see psuMessage); EMBEDDED: ' +
        'collect the user’s id and password at the bank, then the method and the one-time code, each sent with ' +
        'PUT /api/8/consent/{consentId}/sca',
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
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    return c.json(
      await openbanking.startConsent(c.get('deps'), { user, request: c.req.valid('json'), origin }),
      201,
    );
  },
});
