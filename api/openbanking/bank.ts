import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { BANK_FLOW_TYPES, type BankFlowType } from '../../domain/openbanking/xs2a.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankHashParam, bankSchema } from './bank-schemas.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `POST /api/{6,7,8}/bank/{bankHash}`: what a frontend needs to take the user through the bank's
 * strong customer authentication (SCA) before it starts: the flow, the inputs to draw (none for a
 * redirect bank), how the consent is started and where the browser goes. It creates nothing.
 *
 *   redirect   no inputs; POST consent answers `scaRedirectUrl`: send the browser there. The bank's page
 *              logs the user in and asks approve/deny, then POSTs the browser to the gateway's
 *              /openbanking/redirect/{app}/state/{state}, which finishes the consent and sends the user
 *              on to the hook's redirectUrl.
 *   embedded   inputs psuId + password, collected by the frontend and sent with POST consent.
 *   decoupled  input psuId; the user approves in the bank's app; the consent's hook reports the outcome.
 *
 * The sandbox banks are all `redirect`. `bankFlowType`, when given, must be the bank's (400 otherwise),
 * so a frontend built for one flow finds out before the user starts. `User-Agent` is the user's browser:
 * send the same header with POST consent, which forwards it to the bank as PSU-User-Agent.
 */

const inputSchema = z
  .object({
    name: z.string().openapi({ description: 'Field name to send with POST consent', example: 'psuId' }),
    type: z.enum(['text', 'password']).openapi({ example: 'text' }),
    label: z.string().openapi({ description: 'Label to show', example: 'User ID at your bank' }),
    required: z.boolean(),
  })
  .openapi('ScaInput');

const scaDetailsSchema = z
  .object({
    bank: bankSchema,
    bankFlowType: z.enum(BANK_FLOW_TYPES).openapi({ example: 'redirect' }),
    scaApproach: z.enum(['REDIRECT', 'EMBEDDED', 'DECOUPLED']).openapi({
      description: 'The Berlin Group SCA approach the bank uses',
      example: 'REDIRECT',
    }),
    inputs: z
      .array(inputSchema)
      .openapi({ description: 'Inputs to draw before starting (empty for redirect)' }),
    start: z
      .object({
        method: z.literal('POST'),
        path: z.string().openapi({ example: '/openbanking/api/8/consent' }),
        body: z.object({ bankHash: z.string() }).openapi({ description: 'Plus the `inputs`, by name' }),
      })
      .openapi({ description: 'How to start the consent (x-user-hash and User-Agent as here)' }),
    redirect: z
      .object({
        responseField: z.literal('scaRedirectUrl').openapi({
          description: 'Field of the POST consent answer holding the bank page to send the browser to',
        }),
        method: z.literal('GET'),
        returnPath: z.string().openapi({
          description:
            'Where the bank sends the browser back (a POST form); the gateway then redirects to the hook’s redirectUrl',
          example: '/openbanking/redirect/{app}/state/{state}',
        }),
      })
      .nullable()
      .openapi({ description: 'For redirect banks: how the browser travels; null otherwise' }),
    maintenanceActive: z.boolean().openapi({
      description: 'The bank is in a maintenance window now: starting a consent will wait until it ends',
    }),
    instructions: z.string().openapi({ description: 'The steps in words, for the integrator' }),
  })
  .openapi('BankScaDetails');

const SCA_APPROACH = { redirect: 'REDIRECT', embedded: 'EMBEDDED', decoupled: 'DECOUPLED' } as const;

const INPUTS: Record<BankFlowType, z.infer<typeof inputSchema>[]> = {
  redirect: [],
  embedded: [
    { name: 'psuId', type: 'text', label: 'User ID at your bank', required: true },
    { name: 'password', type: 'password', label: 'Online banking password', required: true },
  ],
  decoupled: [{ name: 'psuId', type: 'text', label: 'User ID at your bank', required: true }],
};

const instructionsFor = (flow: BankFlowType, consentPath: string) =>
  ({
    redirect:
      `POST ${consentPath} with {"bankHash"}; send the browser to the answer's scaRedirectUrl. The user logs in at ` +
      'the bank and approves or denies; the bank sends the browser back to the gateway, which completes the consent, ' +
      'calls your hook and redirects the user to the hook’s redirectUrl.',
    embedded:
      `POST ${consentPath} with {"bankHash"} (scaMethod EMBEDDED); collect the inputs and PUT ${consentPath}/{consentId}/sca ` +
      'with {"psuId","password"}; the answer lists scaMethods: PUT the chosen {"authenticationMethodId"}, then the ' +
      'one-time code as {"scaAuthenticationData"}. The gateway relays each step to the bank and stores none of them.',
    decoupled:
      `Collect psuId, then POST ${consentPath} with {"bankHash","psuId"}; the user approves in the bank's app and ` +
      'your hook is called with the outcome.',
  })[flow];

export const bankOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/bank/{bankHash}',
      operationId: 'bankScaDetails',
      tags: ['Banks'],
      summary: 'SCA details of a bank, for a frontend',
      description:
        'How the user will authenticate at the bank: inputs to draw or the redirect to follow, and how to start the ' +
        'consent. Creates nothing. 400 when `bankFlowType` is not the bank’s flow; 404 for an unknown bank.',
      security: USER_SECURITY,
      request: {
        params: z.object({ bankHash: bankHashParam }),
        query: z.object({
          bankFlowType: z.enum(BANK_FLOW_TYPES).optional().openapi({
            description: 'The flow the frontend expects; must be the bank’s',
            example: 'redirect',
          }),
        }),
        headers: z.object({
          'user-agent': z.string().max(1000).optional().openapi({ description: 'The user’s browser' }),
        }),
      },
      responses: {
        200: {
          description: 'The SCA details',
          content: { 'application/json': { schema: scaDetailsSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: (v) => async (c) => {
    await requireUser(c);
    const bank = await openbanking.findBank(c.get('deps'), { bankHash: c.req.valid('param').bankHash });
    const wanted = c.req.valid('query').bankFlowType;
    if (wanted && wanted !== bank.bankFlowType)
      throw Refusal.field('bankFlowType', `${bank.name} supports ${bank.bankFlowType} only`);
    const flow = bank.bankFlowType;
    const consentPath = `/openbanking/api/${v}/consent`;
    return c.json(
      {
        bank,
        bankFlowType: flow,
        scaApproach: SCA_APPROACH[flow],
        inputs: INPUTS[flow],
        start: { method: 'POST' as const, path: consentPath, body: { bankHash: bank.bankHash } },
        redirect:
          flow === 'redirect'
            ? {
                responseField: 'scaRedirectUrl' as const,
                method: 'GET' as const,
                returnPath: '/openbanking/redirect/{app}/state/{state}',
              }
            : null,
        maintenanceActive: bank.maintenance.some((notice) => notice.active),
        instructions: instructionsFor(flow, consentPath),
      },
      200,
    );
  },
});
