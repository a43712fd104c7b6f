import type {
  ConsentAccess,
  ConsentRequest,
  ConsentStatus,
  OAuthScaPending,
  PsuPresence,
} from '../../../domain/openbanking/xs2a.ts';
import { firstLink, hrefOf, isConsentStatus, isObject } from './answers.ts';
import { startAuthorisationAt } from './authorisations.ts';
import { protocolError } from './errors.ts';
import { oauthAuthorisation } from './oauth.ts';
import { psuHeaders, type Xs2aTransport } from './transport.ts';

/**
 * Consents (AIS) as the XS2A client asks for them, whichever SCA approach the bank runs (redirect,
 * decoupled, embedded, OAuth2), and reads or ends them.
 */

export interface CreatedConsent {
  consentId: string;
  consentStatus: ConsentStatus;
  /** Where to send the PSU's browser for SCA (absolute URL): OAuth2, the authorisation request. */
  scaRedirectUrl: string;
  /**
   * OAuth2 as SCA approach (the answer carried `_links.scaOAuth`): what the token request needs once the
   * callback brings the code (the code_verifier is a secret: keep it sealed).
   */
  oauth?: OAuthScaPending;
}

/** A consent whose SCA the bank runs in its own app (decoupled approach). */
export interface CreatedDecoupledConsent {
  consentId: string;
  consentStatus: ConsentStatus;
  /** What the bank tells the PSU ("approve in the app"). */
  psuMessage: string | null;
}

/** A consent whose SCA the TPP relays (embedded approach). */
export interface CreatedEmbeddedConsent {
  consentId: string;
  consentStatus: ConsentStatus;
  /** The bank's `startAuthorisationWithPsuAuthentication` (or `startAuthorisation`) link, absolute. */
  startAuthorisationUrl: string;
}

export interface ConsentInformation {
  consentId: string;
  consentStatus: ConsentStatus;
  access: ConsentAccess;
  recurringIndicator: boolean;
  validUntil: string;
  frequencyPerDay: number;
  lastActionDate: string | null;
}

/** The client's calls on consents. */
export interface Xs2aConsents {
  /** POST /v1/consents (redirect approach): the consent id and the SCA page to send the PSU to. */
  createConsent(
    request: ConsentRequest,
    redirect: { redirectUri: string; nokRedirectUri?: string },
    psu?: PsuPresence,
  ): Promise<CreatedConsent>;
  /**
   * POST /v1/consents (decoupled approach, PSU-ID): the bank asks the PSU in its app (the authorisation
   * starts implicitly); read the consent's status until it leaves `received`.
   */
  createDecoupledConsent(
    request: ConsentRequest,
    psuId: string,
    psu?: PsuPresence,
  ): Promise<CreatedDecoupledConsent>;
  /**
   * POST /v1/consents (embedded approach, TPP-Redirect-Preferred false): the consent and the bank's
   * link to start its authorisation with the PSU's credentials (`startAuthorisationWithPsuAuthentication`).
   */
  createEmbeddedConsent(request: ConsentRequest, psu?: PsuPresence): Promise<CreatedEmbeddedConsent>;
  /** GET /v1/consents/{id} */
  getConsent(consentId: string): Promise<ConsentInformation>;
  /** GET /v1/consents/{id}/status */
  getConsentStatus(consentId: string): Promise<ConsentStatus>;
  /** DELETE /v1/consents/{id}: the TPP ends the consent (terminatedByTpp). */
  deleteConsent(consentId: string): Promise<void>;
}

export function xs2aConsents(t: Xs2aTransport): Xs2aConsents {
  const { call, url, resourceLink } = t;
  return {
    async createConsent(request, redirect, psu) {
      const what = 'create consent';
      const body = await call(
        what,
        'POST',
        url('/v1/consents'),
        {
          'TPP-Redirect-Preferred': 'true',
          'TPP-Redirect-URI': redirect.redirectUri,
          ...(redirect.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': redirect.nokRedirectUri } : {}),
          ...psuHeaders(psu),
        },
        request,
      );
      const consentId = body?.consentId;
      if (typeof consentId !== 'string' || !isConsentStatus(body?.consentStatus))
        throw protocolError(what, 'consentId or consentStatus missing');
      // OAuth2 as SCA approach: the PSU authorises at the bank's authorisation server (decision 0067).
      const scaOAuth = hrefOf(body._links, 'scaOAuth');
      if (scaOAuth)
        return {
          consentId,
          consentStatus: body.consentStatus,
          ...(await oauthAuthorisation(t, what, scaOAuth, consentId, redirect.redirectUri)),
        };
      const scaRedirectUrl = t.absolute(hrefOf(body._links, 'scaRedirect'));
      if (scaRedirectUrl) return { consentId, consentStatus: body.consentStatus, scaRedirectUrl };
      // Redirect with an explicit start: POST the authorisation; its answer carries the SCA page.
      const start = firstLink(body._links, ['startAuthorisation', 'startAuthorisationWithPsuIdentification']);
      if (!start) throw protocolError(what, '_links has neither scaRedirect nor startAuthorisation');
      const started = await startAuthorisationAt(
        t,
        `${what} (start authorisation)`,
        start.href,
        `/v1/consents/${encodeURIComponent(consentId)}`,
        {
          'TPP-Redirect-URI': redirect.redirectUri,
          ...(redirect.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': redirect.nokRedirectUri } : {}),
          ...psuHeaders(psu),
        },
      );
      if (!started.scaRedirectUrl)
        throw protocolError(what, 'the started authorisation has no _links.scaRedirect');
      return { consentId, consentStatus: body.consentStatus, scaRedirectUrl: started.scaRedirectUrl };
    },

    async createDecoupledConsent(request, psuId, psu) {
      const what = 'create consent (decoupled)';
      const body = await call(
        what,
        'POST',
        url('/v1/consents'),
        {
          'TPP-Redirect-Preferred': 'false',
          'TPP-Decoupled-Preferred': 'true',
          'PSU-ID': psuId,
          ...psuHeaders(psu),
        },
        request,
      );
      if (typeof body?.consentId !== 'string' || !isConsentStatus(body.consentStatus))
        throw protocolError(what, 'consentId or consentStatus missing');
      // Decoupled with an explicit start: the PSU is named again when the TPP starts the authorisation.
      const start = firstLink(body._links, ['startAuthorisationWithPsuIdentification', 'startAuthorisation']);
      if (start) {
        const started = await startAuthorisationAt(
          t,
          `${what} (start authorisation)`,
          start.href,
          `/v1/consents/${encodeURIComponent(body.consentId)}`,
          { 'PSU-ID': psuId, ...psuHeaders(psu) },
        );
        return {
          consentId: body.consentId,
          consentStatus: body.consentStatus,
          psuMessage: started.psuMessage ?? (typeof body.psuMessage === 'string' ? body.psuMessage : null),
        };
      }
      return {
        consentId: body.consentId,
        consentStatus: body.consentStatus,
        psuMessage: typeof body.psuMessage === 'string' ? body.psuMessage : null,
      };
    },

    async createEmbeddedConsent(request, psu) {
      const what = 'create consent (embedded)';
      const body = await call(
        what,
        'POST',
        url('/v1/consents'),
        { 'TPP-Redirect-Preferred': 'false', 'TPP-Decoupled-Preferred': 'false', ...psuHeaders(psu) },
        request,
      );
      if (typeof body?.consentId !== 'string' || !isConsentStatus(body.consentStatus))
        throw protocolError(what, 'consentId or consentStatus missing');
      const start = firstLink(body._links, ['startAuthorisationWithPsuAuthentication', 'startAuthorisation']);
      if (!start) throw protocolError(what, '_links.startAuthorisationWithPsuAuthentication missing');
      return {
        consentId: body.consentId,
        consentStatus: body.consentStatus,
        startAuthorisationUrl: resourceLink(
          what,
          start.href,
          `/v1/consents/${encodeURIComponent(body.consentId)}`,
        ),
      };
    },

    async getConsent(consentId) {
      const what = 'read consent';
      const body = await call(what, 'GET', url(`/v1/consents/${encodeURIComponent(consentId)}`), {});
      if (!body || !isConsentStatus(body.consentStatus) || !isObject(body.access))
        throw protocolError(what, 'consentStatus or access missing');
      return {
        consentId,
        consentStatus: body.consentStatus,
        access: body.access as ConsentAccess,
        recurringIndicator: body.recurringIndicator === true,
        validUntil: String(body.validUntil ?? ''),
        frequencyPerDay: Number(body.frequencyPerDay ?? 0),
        lastActionDate: typeof body.lastActionDate === 'string' ? body.lastActionDate : null,
      };
    },

    async getConsentStatus(consentId) {
      const what = 'read consent status';
      const body = await call(what, 'GET', url(`/v1/consents/${encodeURIComponent(consentId)}/status`), {});
      if (!isConsentStatus(body?.consentStatus)) throw protocolError(what, 'consentStatus missing');
      return body.consentStatus;
    },

    async deleteConsent(consentId) {
      await call('delete consent', 'DELETE', url(`/v1/consents/${encodeURIComponent(consentId)}`), {});
    },
  };
}
