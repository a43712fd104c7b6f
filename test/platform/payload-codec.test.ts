import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  AesGcmPayloadCodec,
  DEVELOPMENT_PAYLOAD_KEY,
  KEY_ID_METADATA,
  type PayloadKey,
  payloadKeys,
} from '../../platform/payload-codec.ts';

const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const json = (value: unknown) => defaultPayloadConverter.toPayload(value) as Payload;
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString();

describe('the payload codec', () => {
  const customer = { ssn: '987-65-4329', name: 'Wilhelmina Quillfeather' };

  it('seals a payload so that neither its data nor its encoding shows, and opens it again', async () => {
    const codec = new AesGcmPayloadCodec([key('k1')]);
    const [sealed] = await codec.encode([json(customer)]);
    expect(text(sealed?.metadata?.encoding)).toBe('binary/encrypted');
    expect(text(sealed?.metadata?.[KEY_ID_METADATA])).toBe('k1');
    expect(text(sealed?.data)).not.toContain('987-65-4329');
    expect(text(sealed?.data)).not.toContain('json/plain');
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(customer);
    // A fresh IV each time: the same value never seals to the same bytes.
    const [again] = await codec.encode([json(customer)]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(sealed!.data!))).toBe(false);
  });

  it('rotates: a new first key seals, the old one still opens what it sealed; a dropped key opens nothing', async () => {
    const old = key('2026-01');
    const next = key('2026-06');
    const [before] = await new AesGcmPayloadCodec([old]).encode([json(customer)]);
    const rotated = new AesGcmPayloadCodec([next, old]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([before!]))[0]!)).toEqual(customer);
    const [after] = await rotated.encode([json(customer)]);
    expect(text(after?.metadata?.[KEY_ID_METADATA])).toBe('2026-06');
    await expect(new AesGcmPayloadCodec([next]).decode([before!])).rejects.toThrow(
      'payload sealed with key id "2026-01", which is not configured',
    );
  });

  it('refuses a tampered payload and a payload relabelled with another key id', async () => {
    const first = key('a');
    const second = { id: 'b', key: first.key };
    const codec = new AesGcmPayloadCodec([first, second]);
    const [sealed] = await codec.encode([json(customer)]);
    const flipped = Buffer.from(sealed!.data!);
    flipped[20] = (flipped[20] ?? 0) ^ 1;
    await expect(codec.decode([{ ...sealed!, data: flipped }])).rejects.toThrow();
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('b') } };
    await expect(codec.decode([relabelled])).rejects.toThrow();
  });

  it('passes payloads written before the codec through unchanged (histories of processes in flight)', async () => {
    const plain = json(customer);
    const [decoded] = await new AesGcmPayloadCodec([key('k1')]).decode([plain]);
    expect(decoded).toBe(plain);
  });

  it('uses the configured keys, else the published development key', () => {
    const configured = [key('prod-1')];
    expect(payloadKeys({ PAYLOAD_CODEC_KEYS: configured })).toBe(configured);
    expect(payloadKeys({ PAYLOAD_CODEC_KEYS: [] })).toEqual([DEVELOPMENT_PAYLOAD_KEY]);
  });
});
