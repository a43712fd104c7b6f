import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { verifySignIn } from '../../credentials/shared/operator-sign-in.ts';
import { AesGcmPayloadCodec, payloadKeys } from '../../platform/payload-codec.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The codec server (Temporal's remote codec protocol, `/codec/encode` and `/codec/decode`): the Web UI
 * and the CLI decode the platform's sealed payloads through it, for an operator only (decisions 0049,
 * 0081). Who is an operator:
 * - the holder of ADMIN_TOKEN, presented as a bearer token (the CLI's `--codec-auth`), or through a
 *   session URL (`/codec/session/<key>`) whose key is derived from it: rotating the token revokes it;
 * - an operator signed in to the Web UI (CODEC_OIDC_ISSUER): the UI passes the sign-in's token as a
 *   bearer token (its `codec.passAccessToken`), checked against the provider, and its e-mail or
 *   subject must be one of CODEC_OPERATORS;
 * - on `npm start`'s loopback-only dev topology in sandbox mode, the dev server's own Web UI, through
 *   the loopback listener that checks the UI's origin (api/admin/codec.ts, `localUi`).
 */

export type CodecDirection = 'encode' | 'decode';

/** The codec of the keys in force; built once per configuration object. */
const codecs = new WeakMap<object, AesGcmPayloadCodec>();
function codecOf(deps: UseCaseDeps): AesGcmPayloadCodec {
  let codec = codecs.get(deps.config);
  if (!codec) {
    codec = new AesGcmPayloadCodec(payloadKeys(deps.config));
    codecs.set(deps.config, codec);
  }
  return codec;
}

/** The session key of the Web UI's codec URL: an HMAC of a fixed label under the operator's token. */
export function codecSessionKey(adminToken: string): string {
  return createHmac('sha256', adminToken).update('temporal-codec-session').digest('base64url');
}

/**
 * The operator's credential, as the codec server was given it: a bearer token (ADMIN_TOKEN or a
 * sign-in's token), a session key, or the dev topology's loopback listener for the dev server's UI.
 */
export type CodecCredential = { bearer: string | undefined } | { sessionKey: string } | { localUi: true };

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

const holdsAdminToken = (adminToken: string | undefined, bearer: string | undefined) =>
  adminToken !== undefined &&
  bearer !== undefined &&
  sameText(codecSessionKey(bearer), codecSessionKey(adminToken));

/** The operator a sign-in's token names, when it is a valid token of CODEC_OIDC_ISSUER; else undefined. */
async function signedInOperator(deps: UseCaseDeps, bearer: string): Promise<string | undefined> {
  const {
    CODEC_OIDC_ISSUER: issuer,
    CODEC_OIDC_AUDIENCE: audience,
    CODEC_OPERATORS: operators,
  } = deps.config;
  if (!issuer || !audience) return undefined;
  const signedIn = await verifySignIn({ issuer, audience }, bearer).catch((error: unknown) => {
    deps.logger.warn({ err: error, issuer }, 'the codec server could not check a sign-in');
    throw new Refusal(503, 'sign_in_unavailable', 'The identity provider cannot be reached; try again');
  });
  if (!signedIn) return undefined;
  // E-mail addresses compare without case; subjects are the provider's exact identifiers.
  const email = signedIn.email?.toLowerCase();
  const operator =
    operators.find((name) => email !== undefined && name.toLowerCase() === email) ??
    operators.find((name) => name === signedIn.subject);
  if (!operator) {
    throw new Refusal(403, 'not_an_operator', "This sign-in is not one of the codec server's operators");
  }
  return operator;
}

/** Refuses anyone but an operator: 404 while the codec server is off, 401 or 403 otherwise. */
async function authorise(deps: UseCaseDeps, credential: CodecCredential): Promise<void> {
  const { ADMIN_TOKEN: adminToken, CODEC_OIDC_ISSUER: issuer, PLATFORM_MODE: mode } = deps.config;
  if ('localUi' in credential) {
    // Served only by `npm start` in sandbox mode; a production process never decodes without a sign-in.
    if (mode !== 'sandbox') throw Refusal.notFound('the codec server of the dev Web UI (sandbox mode only)');
    return;
  }
  if (!adminToken && !issuer) {
    throw Refusal.notFound('the codec server (set ADMIN_TOKEN or CODEC_OIDC_ISSUER to enable it)');
  }
  if ('sessionKey' in credential) {
    if (adminToken && sameText(credential.sessionKey, codecSessionKey(adminToken))) return;
  } else if (holdsAdminToken(adminToken, credential.bearer)) {
    return;
  } else if (credential.bearer !== undefined) {
    const operator = await signedInOperator(deps, credential.bearer);
    if (operator) {
      deps.logger.info({ kind: 'codec', operator }, 'codec server used by a signed-in operator');
      return;
    }
  }
  throw Refusal.unauthorized('Missing or invalid operator credential for the codec server');
}

/** Encodes or decodes payloads for an authorised operator; a payload that cannot be opened is refused. */
export async function transcodePayloads(
  deps: UseCaseDeps,
  {
    credential,
    direction,
    payloads,
  }: { credential: CodecCredential; direction: CodecDirection; payloads: Payload[] },
): Promise<Payload[]> {
  await authorise(deps, credential);
  const codec = codecOf(deps);
  try {
    return direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
  } catch (error) {
    throw new Refusal(422, 'payload_not_decodable', (error as Error).message);
  }
}

/** The Web UI's codec URL for the operator presenting ADMIN_TOKEN (shown once, never stored). */
export async function codecSessionUrl(
  deps: UseCaseDeps,
  { bearer, apiBaseUrl }: { bearer: string | undefined; apiBaseUrl: string },
): Promise<string> {
  const adminToken = deps.config.ADMIN_TOKEN;
  if (!holdsAdminToken(adminToken, bearer)) throw Refusal.unauthorized('Missing or invalid admin token');
  return `${apiBaseUrl}/codec/session/${codecSessionKey(adminToken ?? '')}`;
}
