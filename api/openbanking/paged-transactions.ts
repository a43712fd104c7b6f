import { createRoute, z } from '@hono/zod-openapi';
import { xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { transactionRecordOf } from '../../domain/openbanking/consents.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import { ApiError, errorBodySchema, errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { dateRangeQueryWith, ibanIdParam, requireUserAccount, transactionSchema } from './account-records.ts';
import { security } from './identity.ts';

/**
 * `GET /api/8/paged-transactions/{ibanId}`: one page of transactions exactly as the bank pages them, for
 * the banks that page (`supportsPagedTransactions`). Unlike the other reads it calls the bank on the
 * request path, because the pages are the bank's own (its `_links.next`); the first page counts against
 * the consent's frequencyPerDay, following pages do not. `nextPageUrl` is an opaque token of ours (the
 * bank's next link, base64url); the connector only follows links of this bank and this account.
 * Decision record 0019.
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
      .openapi({ description: 'Pass it back as `nextPageUrl` for the next page; null on the last page' }),
  })
  .openapi('TransactionPage');

function decodeToken(token: string): string {
  const url = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^https?:\/\//.test(url))
    throw ApiError.field('nextPageUrl', 'not a nextPageUrl from a previous page');
  return url;
}

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
          nextPageUrl: z.string().max(4000).optional().openapi({ description: 'From the previous page' }),
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
    const { account, bank, consent } = await requireUserAccount(c, c.req.valid('param').ibanId, {
      agentHeader: true,
    });
    const { config } = c.get('deps');
    const { dateFrom, dateTo, nextPageUrl } = c.req.valid('query');
    const next = nextPageUrl ? decodeToken(nextPageUrl) : undefined;
    if (!bank.supportsPagedTransactions)
      throw ApiError.conflict(
        'paged_transactions_not_supported',
        `${bank.name} does not page transactions; use GET transactions/{ibanId}`,
      );
    if (consent.status !== 'ACTIVE' || !consent.bankConsentId)
      throw ApiError.conflict(
        'consent_not_active',
        `The account’s consent is ${consent.status}; add the account again`,
      );
    try {
      const page = await xs2aClientFor(bank, config).listTransactionsPage(
        consent.bankConsentId,
        account.resourceId,
        next
          ? { nextPageUrl: next }
          : { ...(dateFrom ? { dateFrom } : {}), ...(dateTo ? { dateTo } : {}), bookingStatus: 'both' },
      );
      return c.json(
        {
          ibanId: account.id,
          iban: account.iban,
          booked: page.booked.map((transaction) => transactionRecordOf(transaction, 'booked')),
          pending: page.pending.map((transaction) => transactionRecordOf(transaction, 'pending')),
          nextPageUrl: page.nextPageUrl ? Buffer.from(page.nextPageUrl).toString('base64url') : null,
        },
        200,
      );
    } catch (error) {
      switch (xs2aErrorTypeOf(error)) {
        case Xs2aErrorType.AccessExceeded:
          throw new ApiError(
            429,
            'bank_access_exceeded',
            'The bank allows no more reads of this account today',
          );
        case Xs2aErrorType.BankUnavailable:
        case Xs2aErrorType.ProtocolError:
          throw new ApiError(503, 'bank_unavailable', 'The bank could not be reached; try again later');
        case Xs2aErrorType.ConsentExpired:
        case Xs2aErrorType.ConsentInvalid:
        case Xs2aErrorType.ConsentUnknown:
          throw ApiError.conflict('consent_not_active', 'The bank no longer accepts the account’s consent');
        case Xs2aErrorType.FormatError:
          if (next) throw ApiError.field('nextPageUrl', 'not a nextPageUrl of this account');
          throw ApiError.field('dateFrom', 'refused by the bank');
        default:
          throw error;
      }
    }
  },
});
