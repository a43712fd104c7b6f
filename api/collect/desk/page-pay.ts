import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { htmlAnswer } from '../../shared/openapi.ts';
import { defineOperation } from '../../shared/operation.ts';
import { deskPageHandler, pageFormResponses, receiptPage, requirePageForm } from './page-html.ts';

/** POST /desk/pay: the page's "take payment" button. */
export const deskPagePayOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/pay',
      tags: ['Cash desk'],
      summary: 'Cash-desk page: take a payment',
      description:
        'Form fields `csrf`, `requestId` (the idempotency key: a form submitted twice answers the same receipt), ' +
        '`idn`. As POST /desk/api/payments.',
      responses: {
        ...pageFormResponses,
        409: htmlAnswer('Paid already, expired, or not payable at a desk'),
      },
    }),
  handler: () =>
    deskPageHandler(async (c) => {
      const { session, form } = await requirePageForm(c, ['idn']);
      const answer = await collect.takePayment(c.get('deps'), {
        operator: session.operator,
        idempotencyKey: form.requestId,
        idn: form.idn,
      });
      return receiptPage(c, session, answer.receipt);
    }),
});
