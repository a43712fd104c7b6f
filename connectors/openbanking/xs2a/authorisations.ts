import type {
  AuthenticationObject,
  ChallengeData,
  EmbeddedScaInput,
  EmbeddedScaStep,
  PaymentProduct,
  PsuPresence,
  ScaStatus,
} from '../../../domain/openbanking/xs2a.ts';
import { hrefOf, isObject, isScaStatus, lastSegment } from './answers.ts';
import { protocolError } from './errors.ts';
import { paymentPath, psuHeaders, type Xs2aTransport } from './transport.ts';

/**
 * Strong customer authentication as the XS2A client drives it: the explicit start of an authorisation on
 * the bank's link, the steps of a consent's embedded SCA, a payment's authorisation and the status of a
 * cancellation's authorisation.
 */

export interface PaymentAuthorisation {
  authorisationId: string;
  scaStatus: ScaStatus;
  chosenScaMethod: AuthenticationObject | null;
  challengeData: ChallengeData | null;
  /** Text for the PSU (decoupled: "confirm in your banking app"). */
  psuMessage: string | null;
  scaRedirectUrl: string | null;
  /** The bank's link to the authorisation's status (absolute URL), when it gave one. */
  scaStatusUrl: string | null;
}

/**
 * The explicit start of an authorisation (decision 0061): POST the bank's `startAuthorisation…` link
 * with the headers the approach needs; the answer is the authorisation (REDIRECT: with scaRedirect).
 */
export async function startAuthorisationAt(
  t: Xs2aTransport,
  what: string,
  href: string,
  under: string,
  headers: Record<string, string>,
): Promise<PaymentAuthorisation> {
  const body = await t.call(what, 'POST', t.resourceLink(what, href, under), headers, {});
  return authorisationOf(t, what, body);
}

export function authorisationOf(
  t: Xs2aTransport,
  what: string,
  body: Record<string, unknown> | null,
): PaymentAuthorisation {
  const authorisationId = typeof body?.authorisationId === 'string' ? body.authorisationId : null;
  if (!authorisationId || !isScaStatus(body?.scaStatus))
    throw protocolError(what, 'authorisationId or scaStatus missing');
  return {
    authorisationId,
    scaStatus: body.scaStatus,
    chosenScaMethod: isObject(body.chosenScaMethod)
      ? (body.chosenScaMethod as unknown as AuthenticationObject)
      : null,
    challengeData: isObject(body.challengeData) ? (body.challengeData as ChallengeData) : null,
    psuMessage: typeof body.psuMessage === 'string' ? body.psuMessage : null,
    scaRedirectUrl: t.absolute(hrefOf(body._links, 'scaRedirect')),
    scaStatusUrl: t.absolute(hrefOf(body._links, 'scaStatus')),
  };
}

/** The client's calls on authorisations (SCA) of consents and payments. */
export interface Xs2aAuthorisations {
  /**
   * One step of a consent's embedded SCA (decision 0061), on the link the bank gave for it: the PSU's
   * credentials (POST the start link with PSU-ID and psuData.password), the chosen method (PUT
   * selectAuthenticationMethod) or the one-time code (PUT authoriseTransaction).
   */
  embeddedConsentStep(
    consentId: string,
    href: string,
    input: EmbeddedScaInput,
    psu?: PsuPresence,
  ): Promise<EmbeddedScaStep>;
  /** POST /v1/payments/{product}/{paymentId}/authorisations: starts the SCA (embedded: the bank sends its code). */
  startPaymentAuthorisation(
    product: PaymentProduct,
    paymentId: string,
    psu?: PsuPresence,
  ): Promise<PaymentAuthorisation>;
  /** PUT /v1/payments/{product}/{paymentId}/authorisations/{id} with `scaAuthenticationData` (the one-time code). */
  updatePaymentAuthorisation(
    product: PaymentProduct,
    paymentId: string,
    authorisationId: string,
    scaAuthenticationData: string,
    psu?: PsuPresence,
  ): Promise<ScaStatus>;
  /** GET /v1/payments/{product}/{paymentId}/authorisations/{id}: how the SCA stands (decoupled polling). */
  getPaymentAuthorisationStatus(
    product: PaymentProduct,
    paymentId: string,
    authorisationId: string,
  ): Promise<ScaStatus>;
  /** GET the cancellation authorisation's status, on the `scaStatus` link the bank gave. */
  getCancellationAuthorisationStatus(
    product: PaymentProduct,
    paymentId: string,
    scaStatusUrl: string,
  ): Promise<ScaStatus>;
}

export function xs2aAuthorisations(t: Xs2aTransport): Xs2aAuthorisations {
  const { call, url, resourceLink } = t;
  return {
    async embeddedConsentStep(consentId, href, input, psu) {
      const under = `/v1/consents/${encodeURIComponent(consentId)}`;
      const [what, method, headers, body] =
        'password' in input
          ? ([
              'authenticate the PSU (embedded)',
              'POST',
              { 'PSU-ID': input.psuId },
              { psuData: { password: input.password } },
            ] as const)
          : 'authenticationMethodId' in input
            ? ([
                'select the SCA method',
                'PUT',
                {},
                { authenticationMethodId: input.authenticationMethodId },
              ] as const)
            : ([
                'authorise with the one-time code',
                'PUT',
                {},
                { scaAuthenticationData: input.scaAuthenticationData },
              ] as const);
      const answer = await call(
        what,
        method,
        resourceLink(what, href, under),
        {
          ...headers,
          ...psuHeaders(psu),
        },
        body,
      );
      if (!isScaStatus(answer?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      const link = (name: string) => {
        const found = hrefOf(answer._links, name);
        return found ? resourceLink(what, found, under) : null;
      };
      // The PUT answers may leave out the id: it is the last segment of the link the step went to.
      const authorisationId =
        typeof answer.authorisationId === 'string'
          ? answer.authorisationId
          : (lastSegment(new URL(resourceLink(what, href, under)).pathname) ?? '');
      return {
        authorisationId,
        scaStatus: answer.scaStatus,
        scaMethods: Array.isArray(answer.scaMethods)
          ? (answer.scaMethods as unknown[])
              .filter(isObject)
              .map((each) => each as unknown as AuthenticationObject)
          : [],
        chosenScaMethod: isObject(answer.chosenScaMethod)
          ? (answer.chosenScaMethod as unknown as AuthenticationObject)
          : null,
        challengeData: isObject(answer.challengeData) ? (answer.challengeData as ChallengeData) : null,
        psuMessage: typeof answer.psuMessage === 'string' ? answer.psuMessage : null,
        links: {
          selectAuthenticationMethod: link('selectAuthenticationMethod'),
          authoriseTransaction: link('authoriseTransaction'),
          scaStatus: link('scaStatus'),
        },
      };
    },

    async startPaymentAuthorisation(product, paymentId, psu) {
      const what = 'start payment authorisation';
      const body = await call(
        what,
        'POST',
        url(`${paymentPath(product, paymentId)}/authorisations`),
        psuHeaders(psu),
        {},
      );
      return authorisationOf(t, what, body);
    },

    async updatePaymentAuthorisation(product, paymentId, authorisationId, scaAuthenticationData, psu) {
      const what = 'authorise payment';
      const body = await call(
        what,
        'PUT',
        url(`${paymentPath(product, paymentId)}/authorisations/${encodeURIComponent(authorisationId)}`),
        psuHeaders(psu),
        { scaAuthenticationData },
      );
      if (!isScaStatus(body?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      return body.scaStatus;
    },

    async getPaymentAuthorisationStatus(product, paymentId, authorisationId) {
      const what = 'read payment authorisation';
      const body = await call(
        what,
        'GET',
        url(`${paymentPath(product, paymentId)}/authorisations/${encodeURIComponent(authorisationId)}`),
        {},
      );
      if (!isScaStatus(body?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      return body.scaStatus;
    },

    async getCancellationAuthorisationStatus(product, paymentId, scaStatusUrl) {
      const what = 'read cancellation authorisation';
      const target = resourceLink(
        what,
        scaStatusUrl,
        `${paymentPath(product, paymentId)}/cancellation-authorisations`,
      );
      const body = await call(what, 'GET', target, {});
      if (!isScaStatus(body?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      return body.scaStatus;
    },
  };
}
