import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { dateRangeQueryWith, ibanIdParam, transactionSchema } from './account-schemas.ts';
import { requireAccountUser, security } from './identity.ts';

/**
 * `GET /api/8/paged-transactions/{ibanId}`: one page of transactions exactly as the bank pages them, for
 * the banks that page (`supportsPagedTransactions`). Unlike the other reads it calls the bank on the
 * request path, because the pages are the bank's own (its `_links.next`); the first page counts against
 * the consent's frequencyPerDay, following pages do not. `nextPageUrl` is an opaque cursor of ours: a
 * random id whose hash is stored with the bank's next link, the user and the account
 * (`ob_page_cursors`), usable until OPENBANKING_PAGE_CURSOR_TTL; the bank's address never reaches the
 * client. Another user's cursor, or one of another account, is 404; the connector still only follows
 * links of this bank and this account. Decision record 0019.
 */

const pageSchema = z
  .object({
    ibanId: z.string(),
    iban: z.string(),
    booked: z.array(transactionSchema),
    pending: z.array(transactionSchema),
    nextPageUrl: z
      .string()
      .nullable()
      .openapi({
        description:
          'An opaque cursor (valid OPENBANKING_PAGE_CURSOR_TTL, 1 hour by default, for this user and account): pass it ' +
          'back as `nextPageUrl` for the next page; null on the last page',
      }),
  })
  .openapi('TransactionPage');

const errorContent = { content: { 'application/json': { schema: errorBodySchema } } };

export const pagedTransactionsOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/paged-transactions/{ibanId}',
      operationId: 'listPagedTransactions',
      tags: ['Account information'],
      summary: 'Transactions paged by the bank',
      description:
        'One page of the bank’s own paging (only banks with `supportsPagedTransactions`; others 409 ' +
        '`paged_transactions_not_supported`). Without `nextPageUrl` the first page of `dateFrom`..`dateTo`; with it the ' +
        'page it points at. This read calls the bank: 429 `bank_access_exceeded` when the consent’s reads for today are ' +
        'used up, 503 `bank_unavailable`, 409 `consent_not_active` when the consent no longer works.',
      security: security(['userHash'], ['userToken'], ['userHash', 'agentHash'], ['userToken', 'agentHash']),
      request: {
        params: z.object({ ibanId: ibanIdParam }),
        query: dateRangeQueryWith({
          nextPageUrl: z
            .string()
            .max(4000)
            .optional()
            .openapi({ description: 'The cursor of the previous page (another user’s or account’s: 404)' }),
        }),
      },
      responses: {
        200: { description: 'One page', content: { 'application/json': { schema: pageSchema } } },
        ...errorResponses,
        409: { description: 'The bank does not page, or the consent is not active', ...errorContent },
        429: { description: 'The bank refused: reads for today used up', ...errorContent },
        503: { description: 'The bank could not be reached', ...errorContent },
      },
    }),
  handler: () => async (c) => {
    const user = await requireAccountUser(c, { agentHeader: true });
    const page = await openbanking.readTransactionPage(c.get('deps'), {
      user,
      ibanId: c.req.valid('param').ibanId,
      ...c.req.valid('query'),
    });
    return c.json(page, 200);
  },
});
