import { createHash, randomBytes } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import { xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { aisClientFor } from '../../credentials/openbanking/bank-tokens.ts';
import type { UserIdentity } from '../../credentials/openbanking/identity.ts';
import type { Database } from '../../db/client.ts';
import { obPageCursors } from '../../db/schema/openbanking-page-cursors.ts';
import { transactionRecordOf } from '../../domain/openbanking/consents.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { findUserAccount } from './accounts.ts';

/**
 * One page of transactions exactly as the bank pages them (GET paged-transactions/{ibanId}), for the
 * banks that page. It calls the bank on the request path, because the pages are the bank's own (its
 * `_links.next`). `nextPageUrl` is an opaque cursor of ours: a random id whose hash is stored with the
 * bank's next link, the user and the account (`ob_page_cursors`), usable until
 * OPENBANKING_PAGE_CURSOR_TTL; the bank's address never reaches the client. Decision record 0019.
 */

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

type PagedTransaction = ReturnType<typeof transactionRecordOf>;

export interface TransactionPage {
  ibanId: string;
  iban: string;
  booked: PagedTransaction[];
  pending: PagedTransaction[];
  nextPageUrl: string | null;
}

/** The first page (of the days dateFrom…dateTo), or the page behind `nextPageUrl`; bank refusals mapped. */
export async function readTransactionPage(
  deps: UseCaseDeps,
  {
    user,
    ibanId,
    ...query
  }: {
    user: UserIdentity;
    ibanId: string;
    dateFrom?: string | undefined;
    dateTo?: string | undefined;
    nextPageUrl?: string | undefined;
  },
): Promise<TransactionPage> {
  const { config, db } = deps;
  const { account, bank, consent } = await findUserAccount(db, user.userId, ibanId);
  const owner = { userId: user.userId, accountId: account.id };
  const { dateFrom, dateTo, nextPageUrl } = query;
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
    const page = await (await aisClientFor(deps, bank, consent)).listTransactionsPage(
      consent.bankConsentId,
      account.resourceId,
      next
        ? { nextPageUrl: next }
        : { ...(dateFrom ? { dateFrom } : {}), ...(dateTo ? { dateTo } : {}), bookingStatus: 'both' },
    );
    return {
      ibanId: account.id,
      iban: account.iban,
      booked: page.booked.map((transaction) => transactionRecordOf(transaction, 'booked')),
      pending: page.pending.map((transaction) => transactionRecordOf(transaction, 'pending')),
      nextPageUrl: page.nextPageUrl
        ? await issueCursor(db, owner, page.nextPageUrl, config.OPENBANKING_PAGE_CURSOR_TTL)
        : null,
    };
  } catch (error) {
    switch (xs2aErrorTypeOf(error)) {
      case Xs2aErrorType.AccessExceeded:
        throw new Refusal(429, 'bank_access_exceeded', 'The bank allows no more reads of this account today');
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
}
