import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { cardSchema } from '../payment-option-schemas.ts';

/** `GET /PaymentOptions/Cards`: the customer's cards (display data only; never a token or number). */
export const paymentOptionsCardsListOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/PaymentOptions/Cards'),
      tags: ['Payment options'],
      summary: 'List cards',
      description:
        'The customer’s cards, oldest first: pending (the card page not yet passed), active (saved at the collection ' +
        'gateway: brand, last four digits, expiry) and failed ones; deleted cards are left out (decision 0045).',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The cards',
          content: { 'application/json': { schema: z.object({ cards: z.array(cardSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const cards = await lending.listCards(c.get('deps'), { tenantId: c.get('lendingTenant').id, customerId });
    return c.json({ cards }, 200);
  },
});
