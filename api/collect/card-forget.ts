import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticationErrors,
  encodedQuerySchema,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
} from './protocol.ts';

/**
 * GET /card/forget.cgi (design, decision 0045): the merchant's saved card can no longer be charged
 * (a customer removed it). The row stays, marked deleted, for the charges made with it; forgetting it
 * again answers the same.
 */
export const cardForgetOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/card/forget.cgi',
      tags: ['Saved cards'],
      summary: 'Forget a saved card (CardForgetPayload)',
      description:
        'Design (decision 0045), not in the ePay protocol. Packet: `MIN`, `CARD_TOKEN`. The saved card can no ' +
        'longer be charged (`GET /card/charge.cgi` answers `BAD_FIELD CARD_TOKEN`). Answers `CARD_TOKEN` and ' +
        '`STATUS=DELETED`, the second time too; another merchant’s or an unknown token is `BAD_FIELD CARD_TOKEN`.',
      request: { query: encodedQuerySchema },
      responses: textResponses('Forgotten', 'CARD_TOKEN=ctk_0123456789abcdef01234567\nSTATUS=DELETED\n', [
        ...authenticationErrors,
      ]),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      const { cardToken } = await collect.forgetSavedCard(c.get('deps'), await requestParams(c));
      return textAnswer(c, { CARD_TOKEN: cardToken, STATUS: 'DELETED' });
    }),
});
