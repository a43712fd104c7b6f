import {
  createHash,
  createPrivateKey,
  createSign,
  createVerify,
  type KeyObject,
  X509Certificate,
} from 'node:crypto';
import type { Config } from '../../platform/config.ts';

/** Adds the TPP's signature headers to a request (the bank connector calls it for every request). */
export type RequestSigner = (request: {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}) => Record<string, string>;

/**
 * The gateway's TPP identity toward banks: Berlin Group NextGenPSD2 request signing (the "Signing
 * Messages" chapter of the Implementation Guidelines, after draft-cavage-http-signatures-10). Every
 * request carries
 *
 *   Digest:                    SHA-256=<base64 of the SHA-256 of the body (empty for none)>
 *   Date:                      the time of signing (RFC 7231)
 *   Signature:                 keyId="SN=<serial>,CA=<issuer>",algorithm="rsa-sha256",
 *                              headers="digest date x-request-id[ psu-id][ tpp-redirect-uri]",signature="<base64>"
 *   TPP-Signature-Certificate: the signing certificate, base64 DER (no PEM armour)
 *
 * where the signature is RSA-SHA256 over the listed headers, one `name: value` line each, in that order.
 * The key and certificate are OPENBANKING_TPP_SIGNING_KEY and OPENBANKING_TPP_CERTIFICATE (PEM, a QSeal
 * certificate in production). `verifyTppSignature` is the bank's side (the sandbox banks use it).
 */

const SIGNED_HEADERS = ['digest', 'date', 'x-request-id', 'psu-id', 'tpp-redirect-uri'] as const;

export const digestHeaderOf = (body: string | undefined) =>
  `SHA-256=${createHash('sha256')
    .update(body ?? '')
    .digest('base64')}`;

const signingString = (names: readonly string[], header: (name: string) => string | undefined) =>
  names.map((name) => `${name}: ${header(name) ?? ''}`).join('\n');

/** The certificate's keyId: serial number and issuer, as Berlin Group writes them. */
const keyIdOf = (certificate: X509Certificate) =>
  `SN=${certificate.serialNumber},CA=${certificate.issuer.replaceAll('\n', ', ')}`;

export function createTppSigner(input: { privateKeyPem: string; certificatePem: string }): RequestSigner {
  const key: KeyObject = createPrivateKey(input.privateKeyPem);
  const certificate = new X509Certificate(input.certificatePem);
  const certificateBase64 = certificate.raw.toString('base64');
  const keyId = keyIdOf(certificate);
  return ({ headers, body }) => {
    const lower = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    const signed: Record<string, string> = {
      ...lower,
      digest: digestHeaderOf(body),
      date: new Date().toUTCString(),
    };
    const names = SIGNED_HEADERS.filter((name) => signed[name] !== undefined);
    const signature = createSign('RSA-SHA256')
      .update(signingString(names, (name) => signed[name]))
      .sign(key, 'base64');
    return {
      Digest: signed.digest!,
      Date: signed.date!,
      Signature: `keyId="${keyId}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`,
      'TPP-Signature-Certificate': certificateBase64,
    };
  };
}

/** The configured signer; undefined when no TPP key is configured (the sandbox banks then accept unsigned requests). */
export function tppSignerOf(
  config: Partial<Pick<Config, 'OPENBANKING_TPP_SIGNING_KEY' | 'OPENBANKING_TPP_CERTIFICATE'>>,
): RequestSigner | undefined {
  if (!config.OPENBANKING_TPP_SIGNING_KEY || !config.OPENBANKING_TPP_CERTIFICATE) return undefined;
  const cacheKey = `${config.OPENBANKING_TPP_SIGNING_KEY}|${config.OPENBANKING_TPP_CERTIFICATE}`;
  let signer = signers.get(cacheKey);
  if (!signer) {
    signer = createTppSigner({
      privateKeyPem: config.OPENBANKING_TPP_SIGNING_KEY,
      certificatePem: config.OPENBANKING_TPP_CERTIFICATE,
    });
    signers.set(cacheKey, signer);
  }
  return signer;
}
const signers = new Map<string, RequestSigner>();

export type SignatureCheck =
  | { ok: true; certificate: X509Certificate }
  | { ok: false; code: 'SIGNATURE_MISSING' | 'SIGNATURE_INVALID' | 'CERTIFICATE_INVALID'; text: string };

/**
 * The bank's check of a signed request: the certificate parses (and, when `trusted` fingerprints are
 * given, is one of them), the Digest matches the body, the signed headers include digest and
 * x-request-id, and the signature verifies with the certificate's public key.
 */
export function verifyTppSignature(input: {
  header: (name: string) => string | undefined;
  body: string;
  /** SHA-256 fingerprints (X509Certificate.fingerprint256) the bank accepts; undefined: any valid certificate. */
  trusted?: readonly string[];
}): SignatureCheck {
  const certificateHeader = input.header('tpp-signature-certificate');
  const signatureHeader = input.header('signature');
  const digest = input.header('digest');
  if (!certificateHeader || !signatureHeader || !digest)
    return {
      ok: false,
      code: 'SIGNATURE_MISSING',
      text: 'Digest, Signature and TPP-Signature-Certificate are required',
    };
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(certificateHeader, 'base64'));
  } catch {
    return { ok: false, code: 'CERTIFICATE_INVALID', text: 'TPP-Signature-Certificate is not a certificate' };
  }
  const now = Date.now();
  if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now)
    return { ok: false, code: 'CERTIFICATE_INVALID', text: 'the certificate is not valid now' };
  if (input.trusted && !input.trusted.includes(certificate.fingerprint256))
    return {
      ok: false,
      code: 'CERTIFICATE_INVALID',
      text: 'the certificate is not registered with the bank',
    };
  if (digest !== digestHeaderOf(input.body))
    return { ok: false, code: 'SIGNATURE_INVALID', text: 'Digest does not match the body' };
  const fields = Object.fromEntries(
    [...signatureHeader.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, value]),
  );
  const names = (fields.headers ?? '').split(' ').filter(Boolean);
  if (
    fields.algorithm !== 'rsa-sha256' ||
    !fields.signature ||
    !names.includes('digest') ||
    !names.includes('x-request-id')
  )
    return {
      ok: false,
      code: 'SIGNATURE_INVALID',
      text: 'Signature must sign digest and x-request-id with rsa-sha256',
    };
  if (fields.keyId !== keyIdOf(certificate))
    return { ok: false, code: 'SIGNATURE_INVALID', text: 'keyId does not name the certificate' };
  const valid = createVerify('RSA-SHA256')
    .update(signingString(names, input.header))
    .verify(certificate.publicKey, fields.signature, 'base64');
  return valid
    ? { ok: true, certificate }
    : { ok: false, code: 'SIGNATURE_INVALID', text: 'the signature does not verify with the certificate' };
}
