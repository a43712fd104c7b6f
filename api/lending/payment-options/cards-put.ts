import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { cardChangeSchema, cardSchema } from '../payment-option-schemas.ts';

const cardIdParams = z.object({
  cardId: z
    .string()
    .max(40)
    .openapi({ param: { name: 'cardId', in: 'path' }, example: 'card_3f2a9c1d7e5b4a60' }),
});

/** `PUT /PaymentOptions/Cards/{cardId}`: the card's nickname and whether it is the default method. */
export const paymentOptionsCardsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/PaymentOptions/Cards/{cardId}'),
      tags: ['Payment options'],
      summary: 'Update a card',
      description:
        '`nickname` (null clears it) and `isDefault`: `true` makes the card the default method (a pending card once ' +
        'it is saved); `false` on the default card moves the default to the oldest other method (409 ' +
        '`default_method_required` when the card is the only one). Another customer’s card, or a deleted one: 404.',
      security: lendingSecurity.user,
      request: { params: cardIdParams, body: jsonBody(cardChangeSchema) },
      responses: {
        200: { description: 'The card', content: { 'application/json': { schema: cardSchema } } },
        ...lendingErrorResponses,
        409: {
          description: '`default_method_required`',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const card = await lending.updateCard(c.get('deps'), {
      owner: { tenantId: c.get('lendingTenant').id, customerId },
      cardId: c.req.valid('param').cardId,
      change: c.req.valid('json'),
    });
    return c.json(card, 200);
  },
});
