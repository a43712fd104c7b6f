import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { AIS_LINK_PATH } from './ais-link.ts';
import { optionalAgent, requireUser, security } from './identity.ts';
import { publicBaseUrl } from './public-url.ts';

/**
 * `POST /api/8/agent/ais/email`: "sends an e-mail with an AIS link" to the user. The platform has no mail
 * server: the e-mail is written to the outbox (ob_email_outbox) and logged, and the link is returned.
 * The link is `<base>/openbanking/ais/start?token=<JWT>`, a signed, time-limited (OPENBANKING_AIS_LINK_TTL)
 * token naming the user and, when given, the hook and bank to start the consent with.
 * The page at that link belongs to the consent flow (verify with verifyJwt(..., AUDIENCE.aisLink)).
 *
 * "A user with active rights": the user is live (a deleted user's hash is already 401) and its KYC is not
 * REJECTED (409 `kyc_rejected`).
 */

const aisEmailBody = z
  .object({
    hookHash: z.string().min(1).max(100).optional().openapi({
      description: 'A hook of the user (or its agent) to call back when the consent finishes',
      example: 'hook_Xc2...',
    }),
    bankHash: z.string().min(1).max(100).optional().openapi({ description: 'Start at this bank' }),
  })
  .openapi('AisEmailDTO');

const aisEmailResult = z
  .object({
    messageId: z.string().openapi({ example: 'eml_5b1e0c7a...' }),
    recipient: z.string().openapi({ example: 'maria.ivanova@example.com' }),
    link: z.string().openapi({ description: 'The AIS link in the e-mail' }),
    expiresAt: z.string().openapi({ description: 'The link works until then' }),
  })
  .openapi('AisEmailResult');

export const agentAisEmailOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/agent/ais/email',
      operationId: 'agentAisEmail',
      tags: ['Agent users'],
      summary: 'E-mail an AIS link to the user',
      description:
        'Records an e-mail to the user’s address with a signed link that starts adding bank accounts (AIS consent). ' +
        'No mail server is attached: the e-mail goes to the outbox and the log, and the link is returned. ' +
        '`x-agent-hash`, when sent, must be the user’s agent (else 404). A user whose KYC is REJECTED is 409 `kyc_rejected`.',
      security: security(['userHash'], ['userToken'], ['userHash', 'agentHash']),
      request: { body: { required: false, content: { 'application/json': { schema: aisEmailBody } } } },
      responses: {
        202: {
          description: 'Recorded for sending',
          content: { 'application/json': { schema: aisEmailResult } },
        },
        ...errorResponses,
        409: { description: '`kyc_rejected`', content: errorResponses[400].content },
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const agent = await optionalAgent(c);
    if (agent && agent.agentId !== user.agentId) throw Refusal.notFound('User');
    const body = c.req.valid('json') ?? {};
    const linkBase = `${publicBaseUrl(c)}${AIS_LINK_PATH}`;
    return c.json(await openbanking.sendAisEmail(c.get('deps'), { user, ...body, linkBase }), 202);
  },
});
