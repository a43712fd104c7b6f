import { createRoute, z } from '@hono/zod-openapi';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { ibanIdParam, requireUserAccount } from './account-records.ts';
import { startConsentFlow } from './consent.ts';
import { USER_SECURITY } from './identity.ts';
import { paymentAuthorizationOf, userAgentHeaders } from './payment-records.ts';

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
    const { user, account, consent, bank } = await requireUserAccount(c, c.req.valid('param').ibanId);
    const flag = paymentAuthorizationOf(account, consent);
    if (flag.authorized)
      return c.json(
        {
          ibanId: account.id,
          authorized: true,
          action: 'none' as const,
          scaRedirectUrl: null,
          scaDeadline: null,
          consentId: null,
          state: null,
        },
        200,
      );
    const body = (await c.req.json().catch(() => ({}))) as z.infer<typeof scaBody>;
    const parsed = scaBody.safeParse(body ?? {});
    const options = parsed.success ? parsed.data : {};
    const started = await startConsentFlow(
      c,
      user,
      {
        bankHash: bank.bankHash,
        app: options.app ?? 'web',
        kind: 'ais',
        access: ['accounts', 'balances', 'transactions'],
        ibans: [account.iban],
        ...(options.hookHash ? { hookHash: options.hookHash } : {}),
      },
      c.req.valid('header')['user-agent'],
    );
    return c.json(
      {
        ibanId: account.id,
        authorized: false,
        action: 'redirect' as const,
        scaRedirectUrl: started.scaRedirectUrl,
        scaDeadline: started.scaDeadline,
        consentId: started.consentId,
        state: started.state,
      },
      200,
    );
  },
});
