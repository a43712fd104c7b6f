import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { htmlAnswer } from '../../shared/openapi.ts';
import { defineOperation } from '../../shared/operation.ts';
import { deskPageHandler, pageFormResponses, receiptPage, requirePageForm } from './page-html.ts';

/** POST /desk/payout: the page's pay-out form, with the identity the recipient's document shows. */
export const deskPagePayoutOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/payout',
      tags: ['Cash desk'],
      summary: 'Cash-desk page: pay out a cash payout',
      description:
        'Form fields `csrf`, `requestId`, `idn`, `recipientId`, `recipientName`. As POST /desk/api/payouts.',
      responses: {
        ...pageFormResponses,
        409: htmlAnswer('Paid out already, expired, or not a cash payout'),
        422: htmlAnswer('The identity does not match the payout'),
      },
    }),
  handler: () =>
    deskPageHandler(async (c) => {
      const { session, form } = await requirePageForm(c, ['idn', 'recipientId', 'recipientName']);
      const answer = await collect.payOutCash(c.get('deps'), {
        operator: session.operator,
        idempotencyKey: form.requestId,
        idn: form.idn,
        recipientId: form.recipientId,
        recipientName: form.recipientName,
      });
      return receiptPage(c, session, answer.receipt);
    }),
});
