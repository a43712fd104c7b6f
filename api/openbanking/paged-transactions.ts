import { createHash, randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, lt } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import type { Database } from '../../db/client.ts';
import { obPageCursors } from '../../db/schema/openbanking-page-cursors.ts';
import { transactionRecordOf } from '../../domain/openbanking/consents.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { dateRangeQueryWith, ibanIdParam, requireUserAccount, transactionSchema } from './account-records.ts';
import { security } from './identity.ts';

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

const CURSOR = /^pgc_[A-Za-z0-9_-]{43}$/;
const cursorHash = (cursor: string) => createHash('sha256').update(cursor).digest('hex');

/** A fresh cursor for the bank's next link; the user's expired cursors are removed meanwhile. */
async function issueCursor(
  db: Database,
  owner: { userId: string; accountId: string },
  nextUrl: string,
  ttlMs: number,
): Promise<string> {
  const cursor = `pgc_${randomBytes(32).toString('base64url')}`;
  const now = new Date();
  await db
    .delete(obPageCursors)
    .where(and(eq(obPageCursors.userId, owner.userId), lt(obPageCursors.expiresAt, now)));
  await db.insert(obPageCursors).values({
    cursorHash: cursorHash(cursor),
    ...owner,
    nextUrl,
    expiresAt: new Date(now.getTime() + ttlMs),
  });
  return cursor;
}

/** The bank's next link behind a cursor of this user and account. */
async function resolveCursor(
  db: Database,
  owner: { userId: string; accountId: string },
  cursor: string,
): Promise<string> {
  if (!CURSOR.test(cursor)) throw Refusal.field('nextPageUrl', 'not a nextPageUrl from a previous page');
  const [row] = await db
    .select()
    .from(obPageCursors)
    .where(eq(obPageCursors.cursorHash, cursorHash(cursor)));
  if (!row || row.userId !== owner.userId || row.accountId !== owner.accountId)
    throw Refusal.notFound('Page');
  if (row.expiresAt.getTime() <= Date.now())
    throw Refusal.field('nextPageUrl', 'expired: start again from the first page');
  return row.nextUrl;
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
    const { user, account, bank, consent } = await requireUserAccount(c, c.req.valid('param').ibanId, {
      agentHeader: true,
    });
    const { config, db } = c.get('deps');
    const owner = { userId: user.userId, accountId: account.id };
    const { dateFrom, dateTo, nextPageUrl } = c.req.valid('query');
    const next = nextPageUrl ? await resolveCursor(db, owner, nextPageUrl) : undefined;
    if (!bank.supportsPagedTransactions)
      throw Refusal.conflict(
        'paged_transactions_not_supported',
        `${bank.name} does not page transactions; use GET transactions/{ibanId}`,
      );
    if (consent.status !== 'ACTIVE' || !consent.bankConsentId)
      throw Refusal.conflict(
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
          nextPageUrl: page.nextPageUrl
            ? await issueCursor(db, owner, page.nextPageUrl, config.OPENBANKING_PAGE_CURSOR_TTL)
            : null,
        },
        200,
      );
    } catch (error) {
      switch (xs2aErrorTypeOf(error)) {
        case Xs2aErrorType.AccessExceeded:
          throw new Refusal(
            429,
            'bank_access_exceeded',
            'The bank allows no more reads of this account today',
          );
        case Xs2aErrorType.BankUnavailable:
        case Xs2aErrorType.ProtocolError:
          throw new Refusal(503, 'bank_unavailable', 'The bank could not be reached; try again later');
        case Xs2aErrorType.ConsentExpired:
        case Xs2aErrorType.ConsentInvalid:
        case Xs2aErrorType.ConsentUnknown:
          throw Refusal.conflict('consent_not_active', 'The bank no longer accepts the account’s consent');
        case Xs2aErrorType.FormatError:
          if (next) throw Refusal.field('nextPageUrl', 'not a nextPageUrl of this account');
          throw Refusal.field('dateFrom', 'refused by the bank');
        default:
          throw error;
      }
    }
  },
});
