import { createHash } from 'node:crypto';
import {
  type DataConverter,
  METADATA_ENCODING_KEY,
  type Payload,
  type PayloadCodec,
  ValueError,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import { openBytes, sealBytes } from './sealed-bytes.ts';

/**
 * Every payload the platform hands to Temporal (workflow and activity inputs and results, Update and
 * Signal arguments, memos, failure details, and failures' messages and stack traces through
 * failureConverterPath) is sealed here before it leaves the process: AES-256-GCM of the whole
 * serialized payload, so the engine's storage, the Web UI and the CLI see neither the data nor its
 * original encoding. The key id travels in the payload's metadata; several keys decrypt, the first one
 * encrypts, so a key rotates by putting a new one first and dropping the old one once no open process
 * or retained history holds payloads sealed with it (docs/security.md).
 */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

/** The published development key (sandbox only; production refuses it): derived from a fixed seed. */
export const DEVELOPMENT_PAYLOAD_KEY = {
  id: 'dev-1',
  key: createHash('sha256').update('integration-platform development payload key').digest(),
} as const;

export interface PayloadKey {
  id: string;
  key: Buffer;
}

/**
 * Parses PAYLOAD_CODEC_KEYS: `<id>:<64 hex characters>` entries, comma- or space-separated, the first
 * one encrypting. Empty: no keys configured (the development key serves outside production).
 */
export function parsePayloadKeys(text: string): PayloadKey[] {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  const keys = entries.map((entry) => {
    const match = /^([A-Za-z0-9._-]{1,64}):([0-9a-fA-F]{64})$/.exec(entry);
    if (!match?.[1] || !match[2]) {
      throw new Error('each key must be `<id>:<64 hex characters>` (id: letters, digits, . _ -)');
    }
    return { id: match[1], key: Buffer.from(match[2], 'hex') };
  });
  const ids = new Set(keys.map((key) => key.id));
  if (ids.size !== keys.length) throw new Error('key ids must be unique');
  return keys;
}

// @temporalio/proto is CommonJS: Node's ESM loader sees only its default export.
const { temporal } = proto;
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;
  private readonly encrypting: PayloadKey;

  constructor(keys: readonly PayloadKey[]) {
    const [first] = keys;
    if (!first) throw new Error('the payload codec needs at least one key');
    this.encrypting = first;
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.open(payload));
  }

  /** The key id is the additional data: a payload relabelled with another key id does not decrypt. */
  private seal(payload: Payload): Payload {
    const { id, key } = this.encrypting;
    const idBytes = textEncoder.encode(id);
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const { iv, tag, data } = sealBytes(key, idBytes, plain);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: textEncoder.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: idBytes,
      },
      data: Buffer.concat([iv, data, tag]),
    };
  }

  /** Payloads written before the codec (or by a process without it) pass through as they are. */
  private open(payload: Payload): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (!encoding || textDecoder.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? textDecoder.decode(idBytes) : '';
    const key = this.byId.get(id);
    if (!key) throw new ValueError(`payload sealed with key id "${id}", which is not configured`);
    const sealed = payload.data ?? new Uint8Array();
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new ValueError('sealed payload is truncated');
    const plain = openBytes(key, idBytes ?? new Uint8Array(), {
      iv: sealed.subarray(0, IV_BYTES),
      data: sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES),
      tag: sealed.subarray(sealed.length - TAG_BYTES),
    });
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

/** The keys in force: the configured ones, else (outside production) the development key. */
export function payloadKeys(config: { PAYLOAD_CODEC_KEYS: readonly PayloadKey[] }): readonly PayloadKey[] {
  return config.PAYLOAD_CODEC_KEYS.length > 0 ? config.PAYLOAD_CODEC_KEYS : [DEVELOPMENT_PAYLOAD_KEY];
}

/** Failures' messages and stack traces travel as an encoded (so sealed) payload, not as plain fields. */
export const failureConverterPath = new URL('./sealed-failure-converter.ts', import.meta.url).pathname;

/**
 * The data converter of every Temporal client and worker of the platform. Configuration guarantees that
 * production has keys of its own (platform/config.ts); tests and sandbox use the development key.
 */
export function platformDataConverter(config: { PAYLOAD_CODEC_KEYS: readonly PayloadKey[] }): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(payloadKeys(config))], failureConverterPath };
}
