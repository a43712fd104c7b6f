import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { cardPageSchema, cardSchema, newCardSchema } from '../payment-option-schemas.ts';

/**
 * `POST /PaymentOptions/Cards`: a pending card and the collection gateway's card page form that saves it
 * (a zero-amount verification, decision 0045). The front site posts the form from the customer's
 * browser; the gateway's notification makes the card active.
 */
export const paymentOptionsCardsAddOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/Cards'),
      tags: ['Payment options'],
      summary: 'Add a card',
      description:
        'Creates a pending card `card_…` and answers `cardPage`: the form (`action`, hidden `fields`) the front site ' +
        'posts from the customer’s browser to the collection gateway’s card page, where the card is entered and ' +
        'verified without a charge. Lending never receives the card number: the gateway’s notification makes the ' +
        'card `active` (brand, last four, expiry) or `failed`. `isDefault` makes it the default method once saved ' +
        '(the customer’s first method is the default anyway). `returnUrl` must be on a site domain of the tenant. ' +
        '409 `collect_merchant_not_configured` until the tenant is a merchant of the gateway.',
      security: lendingSecurity.user,
      request: { body: { required: false, content: { 'application/json': { schema: newCardSchema } } } },
      responses: {
        201: {
          description: 'The pending card and the card page form',
          content: {
            'application/json': {
              schema: cardSchema.extend({ cardPage: cardPageSchema }).openapi('NewCardAnswer'),
            },
          },
        },
        ...lendingErrorResponses,
        409: {
          description: '`collect_merchant_not_configured`',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const { card, cardPage } = await lending.createCard(c.get('deps'), {
      tenant: c.get('lendingTenant'),
      customerId,
      ...c.req.valid('json'),
    });
    return c.json({ ...card, cardPage }, 201);
  },
});
