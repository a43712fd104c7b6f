import type {
  AccountDetails,
  AccountReference,
  Balance,
  BookingStatus,
  MaintenanceNotice,
  PsuPresence,
  Transaction,
} from '../../../domain/openbanking/xs2a.ts';
import { Xs2aErrorType } from '../../../domain/openbanking/xs2a.ts';
import { hrefOf, isObject } from './answers.ts';
import { failure, protocolError } from './errors.ts';
import { accountPath, type Xs2aTransport } from './transport.ts';

/**
 * Account information as the XS2A client reads it under a consent: accounts, balances, transactions
 * (paged, or as a download link, each link checked to stay on the account), and the bank's maintenance
 * notices.
 */

export interface TransactionQuery {
  /** YYYY-MM-DD */
  dateFrom?: string;
  dateTo?: string;
  /** Default both. */
  bookingStatus?: BookingStatus;
}

export interface TransactionPage {
  account: AccountReference;
  booked: Transaction[];
  pending: Transaction[];
  /** Absolute URL of the bank's next page (pass it back as `nextPageUrl`), null on the last page. */
  nextPageUrl: string | null;
}

export interface TransactionReport {
  account: AccountReference;
  booked: Transaction[];
  pending: Transaction[];
  /** How many pages the bank answered in. */
  pages: number;
}

/** The client's account-information reads. */
export interface Xs2aAccounts {
  /** GET /v1/accounts (with the balances when `withBalance` and the consent covers them). */
  listAccounts(
    consentId: string,
    options?: { withBalance?: boolean; psu?: PsuPresence },
  ): Promise<AccountDetails[]>;
  /** GET /v1/accounts/{id}/balances */
  getBalances(
    consentId: string,
    accountId: string,
    psu?: PsuPresence,
  ): Promise<{ account: AccountReference; balances: Balance[] }>;
  /** GET /v1/accounts/{id}/transactions, following `_links.next` until the last page. */
  listTransactions(
    consentId: string,
    accountId: string,
    query?: TransactionQuery,
    psu?: PsuPresence,
  ): Promise<TransactionReport>;
  /**
   * One page: the first page of `query`, or the page at `nextPageUrl` (which must be a URL of this
   * bank's transactions of this account; anything else is refused as Xs2aFormatError).
   */
  listTransactionsPage(
    consentId: string,
    accountId: string,
    page: TransactionQuery | { nextPageUrl: string },
    psu?: PsuPresence,
  ): Promise<TransactionPage>;
  /** GET /v1/accounts/{id}/transactions/{transactionId} */
  getTransaction(
    consentId: string,
    accountId: string,
    transactionId: string,
    psu?: PsuPresence,
  ): Promise<Transaction>;
  /** GET /v1/maintenance (ASPSP-specific): current and announced maintenance windows. */
  getMaintenanceNotices(): Promise<MaintenanceNotice[]>;
}

export function xs2aAccounts(t: Xs2aTransport): Xs2aAccounts {
  const { call, url, consentHeaders } = t;
  const maxPages = t.options.maxPages ?? 1000;

  function transactionPageOf(what: string, body: Record<string, unknown>): TransactionPage {
    const account = body.account;
    const report = body.transactions;
    if (!isObject(report)) throw protocolError(what, 'no transactions report');
    const list = (value: unknown) => (Array.isArray(value) ? (value as Transaction[]) : []);
    const next = hrefOf(report._links, 'next') ?? hrefOf(body._links, 'next');
    return {
      account: (isObject(account) ? account : {}) as unknown as AccountReference,
      booked: list(report.booked),
      pending: list(report.pending),
      nextPageUrl: next ? t.absolute(next) : null,
    };
  }

  /**
   * A link the bank gives for this account's transactions (`_links.next`, `_links.download`) must stay
   * on this bank (its origin or a host its directory entry lists) and under this account's
   * transactions (never an arbitrary URL): a next page is the transactions path itself, a download one
   * below it. Relative and `/psd2/v1/…` links resolve against the base URL (links.ts).
   */
  function checkedTransactionsLink(
    what: string,
    accountId: string,
    href: string,
    kind: 'nextPageUrl' | 'download',
  ): string {
    const target = t.bankLink(
      href,
      `${accountPath(accountId)}/transactions`,
      kind === 'nextPageUrl' ? 'exactly' : 'below',
    );
    if (target !== null) return target;
    const text =
      kind === 'nextPageUrl'
        ? 'nextPageUrl is not a page of this account'
        : 'download is not a report of this account';
    throw failure(Xs2aErrorType.FormatError, `${what}: ${text}`, {
      status: null,
      code: 'FORMAT_ERROR',
      text,
      retryAfterSeconds: null,
    });
  }

  const accounts: Xs2aAccounts = {
    async listAccounts(consentId, listOptions = {}) {
      const what = 'list accounts';
      const body = await call(
        what,
        'GET',
        url('/v1/accounts', { withBalance: listOptions.withBalance ? 'true' : undefined }),
        consentHeaders(consentId, listOptions.psu),
      );
      if (!Array.isArray(body?.accounts)) throw protocolError(what, 'accounts missing');
      return (body.accounts as Record<string, unknown>[]).map(
        ({ _links, ...account }) => account,
      ) as unknown as AccountDetails[];
    },

    async getBalances(consentId, accountId, psu) {
      const what = 'read balances';
      const body = await call(
        what,
        'GET',
        url(`${accountPath(accountId)}/balances`),
        consentHeaders(consentId, psu),
      );
      if (!Array.isArray(body?.balances)) throw protocolError(what, 'balances missing');
      return {
        account: (isObject(body.account) ? body.account : {}) as unknown as AccountReference,
        balances: body.balances as Balance[],
      };
    },

    async listTransactions(consentId, accountId, query = {}, psu) {
      let page = await accounts.listTransactionsPage(consentId, accountId, query, psu);
      const report: TransactionReport = {
        account: page.account,
        booked: [...page.booked],
        pending: [...page.pending],
        pages: 1,
      };
      while (page.nextPageUrl) {
        if (report.pages >= maxPages)
          throw protocolError(
            'list transactions',
            `more than ${maxPages} pages; stopped following _links.next`,
          );
        page = await accounts.listTransactionsPage(
          consentId,
          accountId,
          { nextPageUrl: page.nextPageUrl },
          psu,
        );
        report.booked.push(...page.booked);
        report.pending.push(...page.pending);
        report.pages += 1;
      }
      return report;
    },

    async listTransactionsPage(consentId, accountId, page, psu) {
      const what = 'list transactions';
      const target =
        'nextPageUrl' in page
          ? checkedTransactionsLink(what, accountId, page.nextPageUrl, 'nextPageUrl')
          : url(`${accountPath(accountId)}/transactions`, {
              dateFrom: page.dateFrom,
              dateTo: page.dateTo,
              bookingStatus: page.bookingStatus ?? 'both',
            });
      const body = await call(what, 'GET', target, consentHeaders(consentId, psu));
      // A long list may come as a link to the report (XS2A 1.3 `_links.download`) instead of inline.
      const download = body && !isObject(body.transactions) ? hrefOf(body._links, 'download') : undefined;
      if (download) {
        const link = checkedTransactionsLink(what, accountId, download, 'download');
        const report = await call(what, 'GET', link, consentHeaders(consentId, psu));
        return transactionPageOf(what, report ?? {});
      }
      return transactionPageOf(what, body ?? {});
    },

    async getTransaction(consentId, accountId, transactionId, psu) {
      const what = 'read transaction';
      const body = await call(
        what,
        'GET',
        url(`${accountPath(accountId)}/transactions/${encodeURIComponent(transactionId)}`),
        consentHeaders(consentId, psu),
      );
      // XS2A 1.3 answers { transactionsDetails: {...} }; later 1.3.x nest { transactionDetails: {...} }.
      const details = body?.transactionsDetails;
      const transaction =
        isObject(details) && isObject(details.transactionDetails) ? details.transactionDetails : details;
      if (!isObject(transaction) || typeof transaction.transactionId !== 'string')
        throw protocolError(what, 'transactionsDetails missing');
      return transaction as unknown as Transaction;
    },

    async getMaintenanceNotices() {
      const what = 'read maintenance notices';
      const body = await call(what, 'GET', url('/v1/maintenance'), {});
      if (!Array.isArray(body?.notices)) throw protocolError(what, 'notices missing');
      return (body.notices as Record<string, unknown>[])
        .filter(
          (notice) =>
            typeof notice.startsAt === 'string' &&
            typeof notice.endsAt === 'string' &&
            typeof notice.message === 'string',
        )
        .map((notice) => ({
          id: String(notice.id ?? `${notice.startsAt}`),
          startsAt: new Date(notice.startsAt as string).toISOString(),
          endsAt: new Date(notice.endsAt as string).toISOString(),
          message: notice.message as string,
        }));
    },
  };
  return accounts;
}
