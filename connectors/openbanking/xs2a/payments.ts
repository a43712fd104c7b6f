import type { TransactionStatus } from '../../../domain/openbanking/payments.ts';
import { isTransactionStatus } from '../../../domain/openbanking/payments.ts';
import type {
  PaymentInitiationRequest,
  PaymentProduct,
  PsuPresence,
  ScaApproach,
} from '../../../domain/openbanking/xs2a.ts';
import { hrefOf, lastSegment } from './answers.ts';
import { startAuthorisationAt } from './authorisations.ts';
import { protocolError } from './errors.ts';
import { paymentPath, psuHeaders, type Xs2aTransport } from './transport.ts';

/**
 * Single payments (PIS) as the XS2A client initiates, reads and cancels them; their SCA steps are in
 * authorisations.ts.
 */

export interface InitiatedPayment {
  paymentId: string;
  transactionStatus: TransactionStatus;
  /** REDIRECT: the bank's SCA page (absolute URL). */
  scaRedirectUrl: string | null;
  /** The authorisation the bank started implicitly (REDIRECT), when it says so. */
  authorisationId: string | null;
  /** The bank's SCA approach (ASPSP-SCA-Approach). */
  approach: ScaApproach | null;
}

/** Where a payment's SCA returns the PSU (REDIRECT) and which approach the TPP prefers. */
export interface PaymentScaOptions {
  approach: ScaApproach;
  redirectUri?: string;
  nokRedirectUri?: string;
  psu?: PsuPresence;
}

/** What a payment's cancellation came to at the bank. */
export type PaymentCancellation =
  | { status: 'cancelled' }
  | {
      status: 'authorisationNeeded';
      authorisationId: string;
      /** The bank's page where the PSU approves the cancellation (absolute URL). */
      scaRedirectUrl: string;
      /** The bank's link to read the cancellation authorisation's status (absolute URL). */
      scaStatusUrl: string | null;
    };

/** The client's calls on single payments. */
export interface Xs2aPayments {
  /** POST /v1/payments/{product}: the bank records the payment (RCVD) and says how SCA goes. */
  initiatePayment(
    product: PaymentProduct,
    request: PaymentInitiationRequest,
    sca: PaymentScaOptions,
  ): Promise<InitiatedPayment>;
  /** GET /v1/payments/{product}/{paymentId}/status */
  getPaymentStatus(product: PaymentProduct, paymentId: string): Promise<TransactionStatus>;
  /**
   * DELETE /v1/payments/{product}/{paymentId} (decision 0061): `cancelled` when the bank cancelled it at
   * once (204); when the bank wants the PSU to authorise the cancellation (202 with `startAuthorisation`),
   * the client starts that authorisation on the bank's link and answers its SCA page (redirect). A
   * payment past cancelling is Xs2aStatusInvalid (405 CANCELLATION_INVALID).
   */
  cancelPayment(
    product: PaymentProduct,
    paymentId: string,
    sca: { redirectUri: string; nokRedirectUri?: string; psu?: PsuPresence },
  ): Promise<PaymentCancellation>;
}

export function xs2aPayments(t: Xs2aTransport): Xs2aPayments {
  const { call, exchange, url, absolute } = t;
  return {
    async initiatePayment(product, request, sca) {
      const what = 'initiate payment';
      const preference: Record<string, string> =
        sca.approach === 'REDIRECT'
          ? { 'TPP-Redirect-Preferred': 'true' }
          : sca.approach === 'DECOUPLED'
            ? { 'TPP-Redirect-Preferred': 'false', 'TPP-Decoupled-Preferred': 'true' }
            : { 'TPP-Redirect-Preferred': 'false', 'TPP-Decoupled-Preferred': 'false' };
      const { body, headers } = await exchange(
        what,
        'POST',
        url(paymentPath(product)),
        {
          ...preference,
          ...(sca.redirectUri ? { 'TPP-Redirect-URI': sca.redirectUri } : {}),
          ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
          ...psuHeaders(sca.psu),
        },
        request,
      );
      if (typeof body?.paymentId !== 'string' || !isTransactionStatus(body.transactionStatus))
        throw protocolError(what, 'paymentId or transactionStatus missing');
      const announced = headers.get('aspsp-sca-approach');
      const approach =
        announced === 'REDIRECT' || announced === 'EMBEDDED' || announced === 'DECOUPLED' ? announced : null;
      const scaRedirectUrl = absolute(hrefOf(body._links, 'scaRedirect'));
      const start = hrefOf(body._links, 'startAuthorisation');
      if ((approach ?? sca.approach) === 'REDIRECT' && !scaRedirectUrl && start) {
        // Redirect with an explicit start: the SCA page comes with the authorisation the TPP starts.
        const started = await startAuthorisationAt(
          t,
          `${what} (start authorisation)`,
          start,
          paymentPath(product, body.paymentId),
          {
            ...(sca.redirectUri ? { 'TPP-Redirect-URI': sca.redirectUri } : {}),
            ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
            ...psuHeaders(sca.psu),
          },
        );
        if (!started.scaRedirectUrl)
          throw protocolError(what, 'the started authorisation has no _links.scaRedirect');
        return {
          paymentId: body.paymentId,
          transactionStatus: body.transactionStatus,
          scaRedirectUrl: started.scaRedirectUrl,
          authorisationId: started.authorisationId,
          approach: 'REDIRECT',
        };
      }
      return {
        paymentId: body.paymentId,
        transactionStatus: body.transactionStatus,
        scaRedirectUrl,
        authorisationId: lastSegment(hrefOf(body._links, 'scaStatus')),
        approach,
      };
    },

    async getPaymentStatus(product, paymentId) {
      const what = 'read payment status';
      const body = await call(what, 'GET', url(`${paymentPath(product, paymentId)}/status`), {});
      if (!isTransactionStatus(body?.transactionStatus))
        throw protocolError(what, 'transactionStatus missing');
      return body.transactionStatus;
    },

    async cancelPayment(product, paymentId, sca) {
      const what = 'cancel payment';
      const path = paymentPath(product, paymentId);
      const body = await call(what, 'DELETE', url(path), psuHeaders(sca.psu));
      if (body === null) return { status: 'cancelled' };
      const start = hrefOf(body._links, 'startAuthorisation');
      if (!start) {
        if (body.transactionStatus === 'CANC') return { status: 'cancelled' };
        throw protocolError(what, 'a 202 answer without _links.startAuthorisation');
      }
      const started = await startAuthorisationAt(t, `${what} (start authorisation)`, start, path, {
        'TPP-Redirect-URI': sca.redirectUri,
        ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
        ...psuHeaders(sca.psu),
      });
      if (!started.scaRedirectUrl)
        throw protocolError(
          what,
          'the cancellation authorisation has no _links.scaRedirect (only redirect is served)',
        );
      return {
        status: 'authorisationNeeded',
        authorisationId: started.authorisationId,
        scaRedirectUrl: started.scaRedirectUrl,
        scaStatusUrl: started.scaStatusUrl,
      };
    },
  };
}
