import { describe, expect, it } from 'vitest';
import { assemblePartReceipts, type DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import {
  concatenationReference,
  concatenationUdh,
  countSegments,
  readConcatenationUdh,
  splitBinary,
  splitSegments,
  UDH_OCTETS,
} from '../../domain/messaging/segments.ts';

/** Septets of a GSM-7 text (extension characters count two). */
const septets = (text: string) => [...text].reduce((n, ch) => n + ('^{}\\[~]|€\f'.includes(ch) ? 2 : 1), 0);

describe('SMS segmentation (3GPP TS 23.038 / 23.040)', () => {
  it('sends 160 septets whole and cuts 161 into parts of 153', () => {
    expect(splitSegments('a'.repeat(160)).parts).toEqual(['a'.repeat(160)]);
    expect(splitSegments('a'.repeat(161)).parts).toEqual(['a'.repeat(153), 'a'.repeat(8)]);
    expect(countSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', units: 161, parts: 2 });
  });

  it('fills parts to exactly 153 septets: 306 is two parts, 307 three', () => {
    expect(splitSegments('b'.repeat(306)).parts.map((part) => part.length)).toEqual([153, 153]);
    expect(splitSegments('b'.repeat(307)).parts.map((part) => part.length)).toEqual([153, 153, 1]);
  });

  it('never splits an escaped character: one that would take septets 153 and 154 opens the next part', () => {
    const text = `${'c'.repeat(152)}€${'c'.repeat(20)}`;
    const { encoding, parts } = splitSegments(text);
    expect(encoding).toBe('GSM-7');
    expect(parts[0]).toBe('c'.repeat(152));
    expect(parts[1]?.startsWith('€')).toBe(true);
    expect(parts.join('')).toBe(text);
    // Exactly at the boundary it still fits: 151 + 2 = 153.
    const fits = splitSegments(`${'c'.repeat(151)}€${'c'.repeat(20)}`).parts;
    expect(septets(fits[0]!)).toBe(153);
    expect(fits[0]?.endsWith('€')).toBe(true);
  });

  it('counts extension characters twice when deciding one segment or several', () => {
    expect(countSegments('{'.repeat(80))).toMatchObject({ units: 160, parts: 1 });
    expect(countSegments('{'.repeat(81))).toMatchObject({ units: 162, parts: 2 });
    // 77 escapes fill 154 septets, one too many for a part: the part takes 76 (152 septets).
    expect(splitSegments('{'.repeat(81)).parts.map((part) => part.length)).toEqual([76, 5]);
  });

  it('cuts UCS-2 into parts of 67 units and never splits a surrogate pair', () => {
    expect(splitSegments('Ж'.repeat(70)).parts).toHaveLength(1);
    expect(splitSegments('Ж'.repeat(71)).parts.map((part) => part.length)).toEqual([67, 4]);
    const text = `${'Ж'.repeat(66)}😀${'Ж'.repeat(10)}`; // the emoji would be units 67 and 68
    const { encoding, parts } = splitSegments(text);
    expect(encoding).toBe('UCS-2');
    expect(parts[0]).toBe('Ж'.repeat(66));
    expect(parts[1]?.startsWith('😀')).toBe(true);
    expect(parts.join('')).toBe(text);
    expect(countSegments(text)).toEqual({ encoding: 'UCS-2', units: 78, parts: 2 });
  });

  it('takes one septet / unit less per part behind a 16-bit reference UDH', () => {
    expect(splitSegments('a'.repeat(306), UDH_OCTETS[16]).parts.map((part) => part.length)).toEqual([
      152, 152, 2,
    ]);
    expect(splitSegments('Ж'.repeat(134), UDH_OCTETS[16]).parts.map((part) => part.length)).toEqual([
      66, 66, 2,
    ]);
  });

  it('cuts 8-bit binary data into parts of 134 bytes', () => {
    expect(splitBinary(new Uint8Array(140))).toHaveLength(1);
    expect(splitBinary(new Uint8Array(141)).map((part) => part.length)).toEqual([134, 7]);
    expect(splitBinary(new Uint8Array(268)).map((part) => part.length)).toEqual([134, 134]);
  });
});

describe('concatenation reference and UDH', () => {
  it('derives the reference from the message id: the same on every attempt, within its bits', () => {
    expect(concatenationReference('msg_abc', 8)).toBe(concatenationReference('msg_abc', 8));
    expect(concatenationReference('msg_abc', 16)).toBe(concatenationReference('msg_abc', 16));
    const eight = new Set(Array.from({ length: 200 }, (_, i) => concatenationReference(`msg_${i}`, 8)));
    expect(Math.max(...eight)).toBeLessThan(256);
    expect(eight.size).toBeGreaterThan(100);
    expect(concatenationReference('msg_abc', 16)).toBeLessThan(65536);
  });

  it('writes IEI 0x00 (8-bit) and 0x08 (16-bit) headers and reads them back', () => {
    expect([...concatenationUdh(0xab, 3, 2, 8)]).toEqual([0x05, 0x00, 0x03, 0xab, 3, 2]);
    expect([...concatenationUdh(0x1234, 3, 1, 16)]).toEqual([0x06, 0x08, 0x04, 0x12, 0x34, 3, 1]);
    expect(readConcatenationUdh(concatenationUdh(0x1234, 3, 1, 16))).toEqual({
      reference: 0x1234,
      total: 3,
      seq: 1,
    });
    // Another element (a port address, IEI 0x05) before the concatenation element is skipped.
    expect(readConcatenationUdh(Uint8Array.of(0x0b, 0x05, 0x04, 0, 1, 0, 2, 0x00, 0x03, 7, 2, 2))).toEqual({
      reference: 7,
      total: 2,
      seq: 2,
    });
  });
});

describe('a message status assembled from its parts', () => {
  const part = (id: string, status: DeliveryReceipt['status'], doneAt: string): DeliveryReceipt => ({
    carrierMessageId: id,
    status,
    carrierStatus: status === 'delivered' ? 'DELIVRD' : 'UNDELIV',
    ...(status === 'delivered' ? {} : { errorCode: '001' }),
    doneAt,
  });
  const ids = ['p1', 'p2', 'p3'];

  it('waits while a part is missing, then is delivered when the last part was', () => {
    const received = new Map<string, DeliveryReceipt>();
    received.set('p1', part('p1', 'delivered', '2026-01-01T10:00:00.000Z'));
    received.set('p3', part('p3', 'delivered', '2026-01-01T10:02:00.000Z'));
    expect(assemblePartReceipts(ids, received)).toBeUndefined();
    received.set('p2', part('p2', 'delivered', '2026-01-01T10:01:00.000Z'));
    expect(assemblePartReceipts(ids, received)).toMatchObject({
      status: 'delivered',
      carrierMessageId: 'p1',
      doneAt: '2026-01-01T10:02:00.000Z',
    });
  });

  it('fails at once when any part failed, with that part’s error', () => {
    const received = new Map([['p2', part('p2', 'undeliverable', '2026-01-01T10:01:00.000Z')]]);
    expect(assemblePartReceipts(ids, received)).toMatchObject({ status: 'undeliverable', errorCode: '001' });
  });

  it('ignores a receipt for an id that is not one of the parts', () => {
    const received = new Map([['other', part('other', 'undeliverable', '2026-01-01T10:01:00.000Z')]]);
    expect(assemblePartReceipts(ids, received)).toBeUndefined();
  });
});
