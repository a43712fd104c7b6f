import type { BankBulkEntry } from '../../../domain/openbanking/bulk-payments.ts';
import type { TransactionStatus } from '../../../domain/openbanking/payments.ts';
import { isTransactionStatus } from '../../../domain/openbanking/payments.ts';
import type {
  AccountReference,
  PaymentInitiationRequest,
  PaymentProduct,
  PsuPresence,
} from '../../../domain/openbanking/xs2a.ts';
import { hrefOf } from './answers.ts';
import { protocolError } from './errors.ts';
import { psuHeaders, type Xs2aTransport } from './transport.ts';

/** Bulk payments as the XS2A client initiates, reads and cancels them (redirect approach). */

/** The body of POST /v1/bulk-payments/{product}. */
export interface BulkPaymentInitiationRequest {
  /** Our bulk's id: a bank answers a repeated initiation with the same id with the same bulk. */
  paymentInformationId: string;
  batchBookingPreferred: boolean;
  debtorAccount: AccountReference;
  payments: (Omit<PaymentInitiationRequest, 'debtorAccount' | 'endToEndIdentification'> & {
    endToEndIdentification: string;
  })[];
}

export interface InitiatedBulkPayment {
  paymentId: string;
  transactionStatus: TransactionStatus;
  /** The bank's SCA page for the whole bulk (absolute URL). */
  scaRedirectUrl: string;
}

/** The client's calls on bulk payments. */
export interface Xs2aBulkPayments {
  /** POST /v1/bulk-payments/{product} (redirect approach): the bank bulk (RCVD) and its SCA page. */
  initiateBulkPayment(
    product: PaymentProduct,
    request: BulkPaymentInitiationRequest,
    sca: { redirectUri: string; nokRedirectUri?: string; psu?: PsuPresence },
  ): Promise<InitiatedBulkPayment>;
  /** GET /v1/bulk-payments/{product}/{paymentId}/status */
  getBulkPaymentStatus(product: PaymentProduct, paymentId: string): Promise<TransactionStatus>;
  /** DELETE /v1/bulk-payments/{product}/{paymentId}: cancels a bulk the PSU has not authorised (else StatusInvalid). */
  cancelBulkPayment(product: PaymentProduct, paymentId: string): Promise<void>;
  /**
   * GET /v1/bulk-payments/{product}/{paymentId}?offset=&limit=: a page of the entries with each one's
   * transactionStatus (ASPSP-specific: Berlin Group 1.3 leaves per-entry statuses to the bank).
   */
  getBulkPaymentEntries(
    product: PaymentProduct,
    paymentId: string,
    page: { offset: number; limit: number },
  ): Promise<BankBulkEntry[]>;
}

export function xs2aBulkPayments(t: Xs2aTransport): Xs2aBulkPayments {
  const { call, url, absolute } = t;
  return {
    async initiateBulkPayment(product, request, sca) {
      const what = 'initiate bulk payment';
      const body = await call(
        what,
        'POST',
        url(`/v1/bulk-payments/${encodeURIComponent(product)}`),
        {
          'TPP-Redirect-Preferred': 'true',
          'TPP-Redirect-URI': sca.redirectUri,
          ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
          ...psuHeaders(sca.psu),
        },
        request,
      );
      const scaRedirectUrl = absolute(hrefOf(body?._links, 'scaRedirect'));
      if (
        typeof body?.paymentId !== 'string' ||
        !isTransactionStatus(body.transactionStatus) ||
        !scaRedirectUrl
      )
        throw protocolError(what, 'paymentId, transactionStatus or _links.scaRedirect missing');
      return { paymentId: body.paymentId, transactionStatus: body.transactionStatus, scaRedirectUrl };
    },

    async getBulkPaymentStatus(product, paymentId) {
      const what = 'read bulk payment status';
      const path = `/v1/bulk-payments/${encodeURIComponent(product)}/${encodeURIComponent(paymentId)}/status`;
      const body = await call(what, 'GET', url(path), {});
      if (!isTransactionStatus(body?.transactionStatus))
        throw protocolError(what, 'transactionStatus missing');
      return body.transactionStatus;
    },

    async cancelBulkPayment(product, paymentId) {
      const path = `/v1/bulk-payments/${encodeURIComponent(product)}/${encodeURIComponent(paymentId)}`;
      await call('cancel bulk payment', 'DELETE', url(path), {});
    },

    async getBulkPaymentEntries(product, paymentId, page) {
      const what = 'read bulk payment entries';
      const path = `/v1/bulk-payments/${encodeURIComponent(product)}/${encodeURIComponent(paymentId)}`;
      const body = await call(
        what,
        'GET',
        url(path, { offset: String(page.offset), limit: String(page.limit) }),
        {},
      );
      if (!Array.isArray(body?.payments)) throw protocolError(what, 'payments missing');
      return (body.payments as Record<string, unknown>[]).map((entry) => {
        if (typeof entry.endToEndIdentification !== 'string' || typeof entry.transactionStatus !== 'string')
          throw protocolError(what, 'an entry without endToEndIdentification or transactionStatus');
        return {
          endToEndIdentification: entry.endToEndIdentification,
          transactionStatus: entry.transactionStatus,
          reasonCode: typeof entry.reasonCode === 'string' ? entry.reasonCode : null,
        };
      });
    },
  };
}
