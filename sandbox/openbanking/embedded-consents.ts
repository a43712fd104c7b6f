import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { MAX_FAILED_LOGINS, type SandboxBank, type SandboxConsent } from './bank.ts';
import type { SmsSender } from './sms-sender.ts';
import { tppError } from './tpp-errors.ts';

/**
 * The embedded SCA of a consent at a sandbox bank whose flow is `embedded` (decision 0061), Berlin Group
 * 1.3 with explicit start and method selection:
 *
 *   POST /v1/consents (TPP-Redirect-Preferred: false)      → _links.startAuthorisationWithPsuAuthentication
 *   POST /v1/consents/{id}/authorisations                   PSU-ID + { psuData: { password } }
 *        → psuAuthenticated, scaMethods, _links.selectAuthenticationMethod
 *   PUT  /v1/consents/{id}/authorisations/{authId}          { authenticationMethodId }
 *        → scaMethodSelected, chosenScaMethod, challengeData, _links.authoriseTransaction
 *   PUT  /v1/consents/{id}/authorisations/{authId}          { scaAuthenticationData }  → finalised (valid)
 *
 * Two methods: `sms` (the code texted through the sandbox SMSC, when the server has one) and `push`
 * (the code shown in the bank's app: the test control GET /{code}/sandbox/consents/{id}/app-code).
 * Five wrong passwords or three wrong codes fail the authorisation and reject the consent.
 */

export const CONSENT_OTP_MAX_ATTEMPTS = 3;

export interface EmbeddedConsentOptions {
  sendSms?: SmsSender;
  otpTtlMs?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export function embeddedConsentRoutes(bank: SandboxBank, options: EmbeddedConsentOptions) {
  const v1 = `/${bank.definition.code}/v1`;
  const otpTtlMs = options.otpTtlMs ?? 300_000;
  const authPath = (consent: SandboxConsent) =>
    `${v1}/consents/${consent.consentId}/authorisations/${consent.authorisationId}`;
  const methods = (consent: SandboxConsent) => {
    const psu = consent.psuId ? bank.psus.get(consent.psuId) : undefined;
    return [
      ...(options.sendSms && psu
        ? [
            {
              authenticationType: 'SMS_OTP',
              authenticationMethodId: 'sms',
              name: `SMS to ${psu.phone.slice(0, 4)}…${psu.phone.slice(-3)}`,
            },
          ]
        : []),
      { authenticationType: 'PUSH_OTP', authenticationMethodId: 'push', name: `${bank.definition.name} app` },
    ];
  };
  const ended = (consent: SandboxConsent) =>
    consent.scaStatus === 'finalised' || consent.scaStatus === 'failed';

  /** POST …/authorisations with PSU-ID and the password (startAuthorisationWithPsuAuthentication). */
  async function start(c: Context, consent: SandboxConsent): Promise<Response> {
    if (consent.authorisationStarted && consent.scaStatus !== 'received')
      return tppError(c, 'STATUS_INVALID', `The authorisation is ${consent.scaStatus}`);
    const body = (await c.req.json().catch(() => undefined)) as
      | { psuData?: { password?: unknown } }
      | undefined;
    const psuId = c.req.header('psu-id');
    const password = body?.psuData?.password;
    if (!psuId) return tppError(c, 'FORMAT_ERROR', 'PSU-ID is required', 'PSU-ID');
    if (typeof password !== 'string' || password.length === 0)
      return tppError(c, 'FORMAT_ERROR', 'psuData.password is required', 'psuData.password');
    consent.authorisationStarted = true;
    const outcome = bank.login(consent, psuId, password);
    if (outcome === 'wrong') {
      if (consent.failedLogins >= MAX_FAILED_LOGINS) bank.decide(consent, false);
      return tppError(c, 'PSU_CREDENTIALS_INVALID', 'The PSU-ID or password is wrong', 'psuData.password');
    }
    if (outcome === 'no-accounts')
      return tppError(c, 'CONSENT_INVALID', 'None of the requested accounts belongs to this PSU');
    c.header('ASPSP-SCA-Approach', 'EMBEDDED');
    return c.json(
      {
        scaStatus: consent.scaStatus,
        authorisationId: consent.authorisationId,
        scaMethods: methods(consent),
        _links: {
          selectAuthenticationMethod: { href: authPath(consent) },
          scaStatus: { href: authPath(consent) },
        },
      },
      201,
    );
  }

  /** PUT …/authorisations/{id}: the method chosen (the bank sends its code), or the code itself. */
  async function update(c: Context, consent: SandboxConsent): Promise<Response> {
    const body = (await c.req.json().catch(() => undefined)) as
      | { authenticationMethodId?: unknown; scaAuthenticationData?: unknown }
      | undefined;
    if (ended(consent)) return tppError(c, 'STATUS_INVALID', `The authorisation is ${consent.scaStatus}`);
    if (typeof body?.authenticationMethodId === 'string') {
      if (consent.scaStatus !== 'psuAuthenticated' && consent.scaStatus !== 'scaMethodSelected')
        return tppError(c, 'STATUS_INVALID', 'The PSU is not authenticated yet');
      const method = methods(consent).find(
        (each) => each.authenticationMethodId === body.authenticationMethodId,
      );
      if (!method)
        return tppError(
          c,
          'FORMAT_ERROR',
          'authenticationMethodId: not one of scaMethods',
          'authenticationMethodId',
        );
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      consent.otpDigest = sha256(code);
      consent.otpExpiresAt = Date.now() + otpTtlMs;
      consent.otpAttempts = 0;
      consent.appCode = undefined;
      const psu = bank.psus.get(consent.psuId!)!;
      if (method.authenticationMethodId === 'sms') {
        try {
          await options.sendSms!({
            to: psu.phone,
            from: bank.definition.bankCode,
            text: `${bank.definition.name}: your code to share your accounts is ${code}`,
          });
        } catch (error) {
          return tppError(
            c,
            'SERVICE_UNAVAILABLE',
            `The code could not be sent: ${(error as Error).message}`,
          );
        }
      } else consent.appCode = code;
      consent.scaStatus = 'scaMethodSelected';
      return c.json(
        {
          scaStatus: consent.scaStatus,
          chosenScaMethod: method,
          challengeData: {
            otpMaxLength: 6,
            otpFormat: 'integer',
            additionalInformation:
              method.authenticationMethodId === 'sms'
                ? `A code was sent to ${method.name.slice(7)}`
                : `Open the ${bank.definition.name} app for your code`,
          },
          _links: {
            authoriseTransaction: { href: authPath(consent) },
            scaStatus: { href: authPath(consent) },
          },
        },
        200,
      );
    }
    if (typeof body?.scaAuthenticationData === 'string' && body.scaAuthenticationData.length > 0) {
      if (consent.scaStatus !== 'scaMethodSelected' || !consent.otpDigest)
        return tppError(c, 'STATUS_INVALID', 'No code was sent for this authorisation');
      if (Date.now() > (consent.otpExpiresAt ?? 0))
        return tppError(c, 'RESOURCE_EXPIRED', 'The code has expired');
      const given = sha256(body.scaAuthenticationData);
      if (!timingSafeEqual(given, consent.otpDigest)) {
        consent.otpAttempts = (consent.otpAttempts ?? 0) + 1;
        if (consent.otpAttempts >= CONSENT_OTP_MAX_ATTEMPTS) bank.decide(consent, false);
        return tppError(
          c,
          'PSU_CREDENTIALS_INVALID',
          `The code is wrong; ${Math.max(0, CONSENT_OTP_MAX_ATTEMPTS - consent.otpAttempts)} attempts left`,
          'scaAuthenticationData',
        );
      }
      consent.otpDigest = undefined;
      consent.appCode = undefined;
      bank.decide(consent, true);
      return c.json(
        { scaStatus: consent.scaStatus, _links: { scaStatus: { href: authPath(consent) } } },
        200,
      );
    }
    return tppError(c, 'FORMAT_ERROR', 'authenticationMethodId or scaAuthenticationData is required', 'body');
  }

  return { start, update };
}

/** The bank's app showing the code of the `push` method (a test control). */
export function registerEmbeddedConsentControls(app: Hono, bank: SandboxBank): void {
  app.get(`/${bank.definition.code}/sandbox/consents/:consentId/app-code`, (c) => {
    const consent = bank.consents.get(c.req.param('consentId'));
    if (!consent?.appCode) return tppError(c, 'RESOURCE_UNKNOWN', 'No code is shown in the app');
    return c.json({ code: consent.appCode }, 200);
  });
}
