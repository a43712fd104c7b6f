import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `PUT /api/8/consent/{consentId}/sca`: one step of a consent's embedded SCA (decision 0061), relayed to
 * the bank by the consent's workflow. The body is one of: the user's id and password at the bank
 * (`psuId`, `password`), the method they chose (`authenticationMethodId`, from `scaMethods`), or the
 * one-time code (`scaAuthenticationData`). The answer says where the SCA stands and what the user gives
 * next (`next`); once the code is accepted the consent goes on as any other (accounts read, hook
 * called). What the user types is not kept: the id, password and code wait sealed for minutes, outside
 * the engine, until relayed (decision 0068). The use case: application/openbanking/consents.ts.
 */

const credentials = z
  .object({
    psuId: z.string().trim().min(1).max(64).openapi({ example: 'emma' }),
    password: z.string().min(1).max(200).openapi({ format: 'password', example: 'sandbox-emma' }),
  })
  .strict();
const method = z
  .object({ authenticationMethodId: z.string().min(1).max(100).openapi({ example: 'push' }) })
  .strict();
const code = z
  .object({
    scaAuthenticationData: z
      .string()
      .regex(/^[0-9A-Za-z]{4,16}$/, 'the 4 to 16 letters or digits the bank gave')
      .openapi({ example: '482913' }),
  })
  .strict();

const body = z.union([credentials, method, code]).openapi('EmbeddedScaStep', {
  description:
    'One of: `{psuId, password}` (first), `{authenticationMethodId}` (when `next` is `method`), ' +
    '`{scaAuthenticationData}` (when `next` is `code`)',
});

const authenticationObject = z.object({
  authenticationType: z.string().openapi({ example: 'PUSH_OTP' }),
  authenticationMethodId: z.string().openapi({ example: 'push' }),
  name: z.string().optional(),
});

const viewSchema = z
  .object({
    consentId: z.string(),
    scaStatus: z.string().openapi({ description: 'The bank’s SCA status', example: 'psuAuthenticated' }),
    next: z.enum(['credentials', 'method', 'code']).nullable().openapi({
      description: 'What the user gives next; null once the SCA ended (the consent then settles)',
    }),
    scaMethods: z.array(authenticationObject).openapi({ description: 'The methods to choose from' }),
    chosenScaMethod: authenticationObject.nullable(),
    challengeData: z
      .object({
        otpMaxLength: z.number().int().optional(),
        otpFormat: z.enum(['characters', 'integer']).optional(),
        additionalInformation: z.string().optional(),
      })
      .nullable()
      .openapi({ description: 'What to tell the user about the code' }),
    psuMessage: z.string().nullable(),
  })
  .openapi('EmbeddedScaView');

const errorBody = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});

export const consentScaOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'put',
      path: '/consent/{consentId}/sca',
      operationId: 'continueConsentSca',
      tags: ['Account information'],
      summary: 'One step of a consent’s embedded SCA',
      description:
        'For a consent at a bank whose flow is `embedded` (POST consent answered `scaMethod: EMBEDDED`): send the ' +
        'user’s id and password at the bank, then the chosen method, then the one-time code. Errors: another user’s ' +
        'or unknown consent 404; 409 `consent_not_awaiting_sca` (ended, not embedded, or a step out of turn); 409 ' +
        '`sca_step_expired` (the step did not reach the bank in time, or an interrupted attempt used it: give it ' +
        'again); 422 ' +
        '`psu_credentials_invalid` (wrong password or code: the bank rejects the consent after too many), 422 ' +
        '`sca_code_expired`; 502 `bank_refused`; 503 `bank_unavailable`.',
      security: USER_SECURITY,
      request: {
        params: z.object({ consentId: z.string().min(1).max(100) }),
        headers: z.object({
          'user-agent': z.string().max(1000).optional().openapi({ description: 'The user’s browser' }),
        }),
        body: jsonBody(body),
      },
      responses: {
        200: { description: 'Where the SCA stands', content: { 'application/json': { schema: viewSchema } } },
        ...errorResponses,
        409: errorBody('The consent is not waiting for this step'),
        422: errorBody('The bank refused the password or code'),
        502: errorBody('The bank refused the step'),
        503: errorBody('The bank could not be reached'),
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    const view = await openbanking.continueEmbeddedSca(c.get('deps'), {
      user,
      consentId: c.req.valid('param').consentId,
      step: c.req.valid('json'),
      origin,
    });
    return c.json(view, 200);
  },
});
