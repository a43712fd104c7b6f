import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { AesGcmPayloadCodec, payloadKeys } from '../../platform/payload-codec.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The codec server (Temporal's remote codec protocol, `/codec/encode` and `/codec/decode`): the Web UI
 * and the CLI decode the platform's sealed payloads through it, for an operator only. The CLI presents
 * the operator's ADMIN_TOKEN as a bearer token; a browser cannot add a header to the Web UI's requests,
 * so the operator gives the UI a session URL (`/codec/session/<key>`) whose key is derived from the
 * ADMIN_TOKEN: it opens nothing else, and rotating the ADMIN_TOKEN revokes it.
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

/** The operator's credential, as the codec server was given it. */
export type CodecCredential = { bearer: string | undefined } | { sessionKey: string };

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

function authorise(deps: UseCaseDeps, credential: CodecCredential): void {
  const adminToken = deps.config.ADMIN_TOKEN;
  if (!adminToken) throw Refusal.notFound('the codec server (set ADMIN_TOKEN to enable it)');
  const presented =
    'sessionKey' in credential
      ? sameText(credential.sessionKey, codecSessionKey(adminToken))
      : credential.bearer !== undefined &&
        sameText(codecSessionKey(credential.bearer), codecSessionKey(adminToken));
  if (!presented) throw Refusal.unauthorized('Missing or invalid operator token for the codec server');
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
  authorise(deps, credential);
  const codec = codecOf(deps);
  try {
    return direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
  } catch (error) {
    throw new Refusal(422, 'payload_not_decodable', (error as Error).message);
  }
}

/** The Web UI's codec URL for the operator presenting their token (shown once, never stored). */
export function codecSessionUrl(
  deps: UseCaseDeps,
  { bearer, apiBaseUrl }: { bearer: string | undefined; apiBaseUrl: string },
): string {
  authorise(deps, { bearer });
  return `${apiBaseUrl}/codec/session/${codecSessionKey(deps.config.ADMIN_TOKEN ?? '')}`;
}
