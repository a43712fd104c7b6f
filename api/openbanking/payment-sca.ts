import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { ibanIdParam } from './account-schemas.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireAccountUser, USER_SECURITY } from './identity.ts';
import { userAgentHeaders } from './payment-schemas.ts';

/**
 * `POST /api/{6,7,8}/payment/sca/{ibanId}`: how to obtain the payment authorization of an account.
 * Authorized already: says so and starts nothing. Otherwise it starts a new consent for exactly that
 * account at its bank (the AIS consent flow, POST consent) and answers where to send the user: what it
 * stores is that consent (ob_consents, AWAITING_SCA); once the user approved at the bank, the account is
 * re-linked to it and its flag is true. Decision 0033.
 */

const scaBody = z
  .object({
    hookHash: z.string().min(1).max(100).optional().openapi({
      description: 'A hook called back (`consent.finished`) when the authorization ends',
    }),
    app: z
      .string()
      .max(32)
      .optional()
      .openapi({ description: 'Your application in the callback path', example: 'web' }),
  })
  .openapi('PaymentScaRequest');

const scaAnswer = z
  .object({
    ibanId: z.string(),
    authorized: z.boolean(),
    action: z.enum(['none', 'redirect']).openapi({
      description: '`none`: nothing to do; `redirect`: send the user’s browser to `scaRedirectUrl`',
    }),
    scaRedirectUrl: z.string().nullable(),
    scaDeadline: z.string().nullable(),
    consentId: z.string().nullable().openapi({ description: 'The consent started (stored) for the account' }),
    state: z.string().nullable().openapi({ description: 'Appended to the hook call and the redirectUrl' }),
  })
  .openapi('PaymentScaInstructions');

export const paymentScaOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/payment/sca/{ibanId}',
      operationId: 'startPaymentAuthorization',
      tags: ['Payment initiation'],
      summary: 'How to obtain the payment authorization of the account',
      description:
        'When the account is not authorized for payments (GET payment/ibans/{ibanId}), starts a consent for it at its ' +
        'bank and answers the bank’s SCA page (`action: redirect`); after the user approved there, the flag is true. ' +
        'Already authorized: `action: none`. The body may be empty.',
      security: USER_SECURITY,
      request: {
        params: z.object({ ibanId: ibanIdParam }),
        headers: userAgentHeaders,
        body: { content: { 'application/json': { schema: scaBody } }, required: false },
      },
      responses: {
        200: { description: 'What to do', content: { 'application/json': { schema: scaAnswer } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireAccountUser(c);
    const { ibanId } = c.req.valid('param');
    // The body may be empty; a malformed one is as good as none.
    const parsed = scaBody.safeParse((await c.req.json().catch(() => ({}))) ?? {});
    const options = parsed.success ? parsed.data : {};
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    return c.json(
      await openbanking.startPaymentAuthorization(c.get('deps'), { user, ibanId, ...options, origin }),
      200,
    );
  },
});
