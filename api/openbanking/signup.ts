import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { assertOutboundUrlField } from '../../application/shared/outbound-url.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { resolveAgentHash } from '../../credentials/openbanking/identity.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, IDENTITY_HEADERS, NO_SECURITY, optionalAgent } from './identity.ts';
import { emailField, kycStatusField, personNameField, webUrlField } from './user-schemas.ts';

/**
 * `POST /api/{6,7,8}/signup`: an agent enrols a customer and receives the customer's user hash (shown once).
 * The agent is the x-agent-hash header, or else the body's `agentHash`; when both are sent they must match.
 * Version 8 takes the whole SignupDTO; versions 6 and 7 take the personal fields only (companyName, uic
 * and webhookUrl arrived with version 8 and are ignored before it).
 */

const personalFields = {
  agentHash: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'The enrolling agent, when x-agent-hash is not sent', example: 'agent_q3Vb...' }),
  name: personNameField('Given name', 'Maria'),
  middleName: personNameField('Middle name', 'Petrova').optional(),
  family: personNameField('Family name', 'Ivanova'),
  identityHash: z.string().trim().min(1).max(128).optional().openapi({
    description:
      "The agent's own reference of the person (e.g. a hash of an identity document number); stored as given",
    example: '8c1f0e...',
  }),
  email: emailField.openapi({ description: 'The customer’s e-mail; unique among the agent’s live users' }),
};

const signupV6 = z.object(personalFields).openapi('SignupDTOv6');

const signupV8 = z
  .object({
    ...personalFields,
    companyName: z.string().trim().min(1).max(200).optional().openapi({
      description: 'Company of a business customer; required together with `uic`',
      example: 'Acme Ltd',
    }),
    uic: z.string().trim().optional().openapi({
      description: 'Bulgarian UIC (EIK/BULSTAT) of the company: 9 or 13 digits with valid check digit',
      example: '175074752',
    }),
    webhookUrl: webUrlField.optional().openapi({ description: 'Where this customer’s events may be sent' }),
  })
  .openapi('SignupDTO');

type SignupBody = z.infer<typeof signupV8>;

const signupResponse = z
  .object({
    userId: z
      .string()
      .openapi({ description: 'Id of the user (not a credential)', example: 'usr_0f8fad5b...' }),
    userHash: z.string().openapi({
      description: 'The x-user-hash credential of the customer; shown once, only its digest is stored',
      example: 'user_Zr5c...',
    }),
    agentId: z.string().openapi({ example: 'agt_3f2a9c0d...' }),
    kycStatus: kycStatusField,
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
  })
  .openapi('SignupResult');

export const signupOperation = defineOperation({
  versions: [6, 7, 8],
  route: (v) =>
    createRoute({
      method: 'post',
      path: '/signup',
      operationId: 'signup',
      tags: ['Users'],
      summary: 'Enrol a customer',
      description:
        'The caller must be an agent: `x-agent-hash`, or the body’s `agentHash`. ' +
        (v === 8
          ? 'Body: SignupDTO. '
          : 'Body: the personal fields of SignupDTO (companyName, uic and webhookUrl exist from version 8). ') +
        'A live user with the same e-mail under the agent is 409 `user_exists`.',
      // The agent hash may come in the body instead of the header, so the route is not gated on it.
      security: [...AGENT_SECURITY, ...NO_SECURITY],
      request: {
        body: jsonBody(v === 8 ? signupV8 : signupV6),
      },
      responses: {
        201: { description: 'Enrolled', content: { 'application/json': { schema: signupResponse } } },
        ...errorResponses,
        409: { description: '`user_exists`', content: errorResponses[400].content },
      },
    }),
  handler: (v) => async (c) => {
    const { db, config } = c.get('deps');
    const body = c.req.valid('json') as SignupBody;
    const fromHeader = await optionalAgent(c);
    let agentId = fromHeader?.agentId;
    if (body.agentHash !== undefined) {
      if (fromHeader && body.agentHash !== c.req.header(IDENTITY_HEADERS.agent)) {
        throw Refusal.field('agentHash', 'does not match the x-agent-hash header');
      }
      agentId ??= (await resolveAgentHash(db, body.agentHash))?.agentId;
    }
    if (!agentId) {
      throw Refusal.unauthorized(
        body.agentHash === undefined
          ? 'The x-agent-hash header (or the body’s agentHash) is missing'
          : 'The agentHash is not valid',
      );
    }
    const { companyName, uic, webhookUrl, ...personal } = body;
    const request = v === 8 ? { ...personal, business: { companyName, uic, webhookUrl } } : personal;
    const signedUp = await openbanking.signUpUser(c.get('deps'), {
      agentId,
      request,
      checkWebhookUrl: (url) => assertOutboundUrlField(config, 'webhookUrl', url),
    });
    return c.json(signedUp, 201);
  },
});
