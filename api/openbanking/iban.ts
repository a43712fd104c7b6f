import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { ibanIdParam } from './account-schemas.ts';
import { requireAccountUser, USER_SECURITY } from './identity.ts';

/**
 * `DELETE /api/{6,7,8}/iban/{ibanId}`: removes the account from the user's list, with its balances and
 * transactions. When no other account of the user still uses its consent, the bank consent is ended in
 * the background (`ob-consent-end-<consentId>`: DELETE at the bank, consent TERMINATED).
 */

const deletedSchema = z
  .object({
    ibanId: z.string(),
    status: z.literal('deleted'),
    consentId: z.string(),
    consentTermination: z.enum(['requested', 'kept']).openapi({
      description:
        '`requested`: no other account used the consent, so it is being ended at the bank; `kept` otherwise',
    }),
  })
  .openapi('IbanDeleted');

export const ibanOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'delete',
      path: '/iban/{ibanId}',
      operationId: 'deleteIban',
      tags: ['Account information'],
      summary: 'Deletes the user’s IBAN account',
      description:
        'Removes the account and its data from the gateway. Adding it again takes a new consent. Malformed ibanId 400; ' +
        'unknown, already deleted or another user’s account 404.',
      security: USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam }) },
      responses: {
        200: { description: 'Deleted', content: { 'application/json': { schema: deletedSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireAccountUser(c);
    return c.json(
      await openbanking.deleteAccount(c.get('deps'), { user, ibanId: c.req.valid('param').ibanId }),
      200,
    );
  },
});
