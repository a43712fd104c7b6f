import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { amountProblem, formatAmount, parseAmountMinor } from '../../domain/collect/amount.ts';
import { computeChecksum, verifyChecksum } from '../../domain/collect/checksum.ts';
import { CollectProtocolError } from '../../domain/collect/errors.ts';
import { canonicalPacket, decodePacket, encodePacket } from '../../domain/collect/packet.ts';
import {
  BankTransferPayload,
  MoneySendOfficePayload,
  MoneySendProviderPayload,
  OfficeBillPayload,
  parsePayload,
} from '../../domain/collect/payloads.ts';
import { formatPayTime, parseExpTime } from '../../domain/epay-time.ts';

/** The reference implementation merchants use: base64 of the lines, HMAC-SHA1 hex with the secret. */
const reference = (text: string, secret: string) => {
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  return { encoded, checksum: createHmac('sha1', secret).update(encoded).digest('hex') };
};

const errorOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof CollectProtocolError) return { code: error.code, field: error.field };
    throw error;
  }
  throw new Error('expected a CollectProtocolError');
};

describe('CHECKSUM', () => {
  const secret = 'TESTSECRET1234567890';
  const packet =
    'MIN=D123456789\nINVOICE=1001\nAMOUNT=22.80\nEXP_TIME=01.08.2027\nDESCR=Test\nENCODING=utf-8';

  it('is the lowercase hex HMAC-SHA1 of ENCODED with the secret (independent vectors)', () => {
    const { encoded, checksum } = reference(packet, secret);
    expect(computeChecksum(encoded, secret)).toBe(checksum);
    expect(checksum).toMatch(/^[0-9a-f]{40}$/);
    // A fixed vector (computed with Python's hmac): `MIN=D123456789` keyed with `Jefe`.
    expect(computeChecksum('TUlOPUQxMjM0NTY3ODk=', 'Jefe')).toBe('5a2b61fbe97a20ab6005c2b6f6b8a513b5a754ed');
    expect(verifyChecksum(encoded, checksum, secret)).toBe(true);
    expect(verifyChecksum(encoded, checksum.toUpperCase(), secret)).toBe(true);
  });

  it("refuses a tampered payload, a wrong secret, another merchant's secret and a malformed checksum", () => {
    const { encoded, checksum } = reference(packet, secret);
    const tampered = Buffer.from(packet.replace('22.80', '2.80')).toString('base64');
    expect(verifyChecksum(tampered, checksum, secret)).toBe(false);
    expect(verifyChecksum(encoded, checksum, 'WRONGSECRET')).toBe(false);
    const other = reference(packet, 'another-merchant-secret');
    expect(verifyChecksum(encoded, other.checksum, secret)).toBe(false);
    expect(verifyChecksum(encoded, checksum.slice(0, 39), secret)).toBe(false);
    expect(verifyChecksum(encoded, `${checksum.slice(0, 39)}g`, secret)).toBe(false);
  });

  it('covers ENCODED as sent, with MIME line breaks, and reads spaces as +', () => {
    const wrapped = Buffer.from(`${packet}\nDESCR2=${'x'.repeat(80)}`)
      .toString('base64')
      .replace(/(.{60})/g, '$1\n');
    const checksum = createHmac('sha1', secret).update(wrapped).digest('hex');
    expect(verifyChecksum(wrapped, checksum, secret)).toBe(true);
    expect(decodePacket(wrapped).MIN).toBe('D123456789');
    const withPlus = Buffer.from('MIN=D123456789\nDESCR=>>>?').toString('base64');
    expect(withPlus).toContain('+');
    const plusChecksum = createHmac('sha1', secret).update(withPlus).digest('hex');
    expect(verifyChecksum(withPlus.replaceAll('+', ' '), plusChecksum, secret)).toBe(true);
  });
});

describe('ENCODED packet', () => {
  it('decodes KEY=VALUE lines, tolerating unknown keys, CRLF, empty lines and lower-case keys', () => {
    const encoded = Buffer.from(
      'MIN=D123456789\r\n\r\ninvoice=7\nFUTURE_FIELD=x=y\nENCODING=utf-8\nDESCR=Плащане',
    ).toString('base64');
    expect(decodePacket(encoded)).toEqual({
      MIN: 'D123456789',
      INVOICE: '7',
      FUTURE_FIELD: 'x=y',
      ENCODING: 'utf-8',
      DESCR: 'Плащане',
    });
  });

  it("reads windows-1251 when ENCODING is absent (ePay's default)", () => {
    const cp1251 = Buffer.from([...Buffer.from('DESCR='), 0xcf, 0xeb, 0xe0, 0xf9, 0xe0, 0xed, 0xe5]);
    expect(decodePacket(cp1251.toString('base64')).DESCR).toBe('Плащане');
  });

  it('refuses what is not base64 of KEY=VALUE lines, and a key given twice', () => {
    expect(errorOf(() => decodePacket('not base64!'))).toEqual({ code: 'BAD_ENCODED', field: undefined });
    expect(errorOf(() => decodePacket('abc'))).toEqual({ code: 'BAD_ENCODED', field: undefined });
    expect(errorOf(() => decodePacket(Buffer.from('just text').toString('base64'))).code).toBe('BAD_ENCODED');
    expect(errorOf(() => decodePacket(Buffer.from([0xff, 0xfe, 0x3d]).toString('base64'))).code).toBe(
      'BAD_ENCODED',
    );
    expect(errorOf(() => decodePacket(encodePacket({ MIN: 'D1', ENCODING: 'latin-2' })))).toEqual({
      code: 'BAD_FIELD',
      field: 'ENCODING',
    });
    expect(errorOf(() => decodePacket(Buffer.from('MIN=1\nMIN=2').toString('base64')))).toEqual({
      code: 'BAD_FIELD',
      field: 'MIN',
    });
  });

  it('has a canonical form independent of line order and charset declaration', () => {
    const a = decodePacket(Buffer.from('MIN=D1\nINVOICE=2\nENCODING=utf-8').toString('base64'));
    const b = decodePacket(Buffer.from('INVOICE=2\nMIN=D1').toString('base64'));
    expect(canonicalPacket(a)).toBe(canonicalPacket(b));
  });
});

describe('amounts and times', () => {
  it('parses exact decimals into minor units and refuses floats of other shapes', () => {
    expect(parseAmountMinor('22.80')).toBe(2280);
    expect(parseAmountMinor('22.8')).toBe(2280);
    expect(parseAmountMinor('0.01')).toBe(1);
    expect(parseAmountMinor('999999999.99')).toBe(99_999_999_999);
    expect(formatAmount(2280)).toBe('22.80');
    expect(formatAmount(5)).toBe('0.05');
    for (const bad of ['0', '0.00', '-1.00', '1.234', '22,80', '1e3', '', ' 1', '1000000000']) {
      expect(parseAmountMinor(bad), bad).toBeUndefined();
      expect(amountProblem(bad), bad).toBeDefined();
    }
  });

  it('reads EXP_TIME in Europe/Sofia, a bare date as the end of that day', () => {
    expect(parseExpTime('01.08.2027')?.toISOString()).toBe('2027-08-01T20:59:59.000Z'); // EEST, UTC+3
    expect(parseExpTime('15.01.2027 10:00')?.toISOString()).toBe('2027-01-15T08:00:00.000Z'); // EET, UTC+2
    expect(parseExpTime('15.01.2027 10:00:30')?.toISOString()).toBe('2027-01-15T08:00:30.000Z');
    for (const bad of ['31.02.2027', '1.8.2027', '01.08.2027 24:00', '2027-08-01', '01.08.2027 10']) {
      expect(parseExpTime(bad), bad).toBeUndefined();
    }
    expect(formatPayTime(new Date('2027-08-01T07:00:05Z'))).toBe('20270801100005');
  });
});

describe('payload models', () => {
  const base = { MIN: 'D123456789', INVOICE: '1001', AMOUNT: '22.80' };

  it('parse an office bill with defaults', () => {
    expect(parsePayload(OfficeBillPayload, { ...base, EXTRA: 'ignored' })).toEqual({
      min: 'D123456789',
      invoice: '1001',
      amountMinor: 2280,
      currency: 'BGN',
      expTime: undefined,
      descr: undefined,
    });
  });

  it('name the first missing or malformed field', () => {
    expect(errorOf(() => parsePayload(OfficeBillPayload, { MIN: 'D123456789', AMOUNT: '1' }))).toEqual({
      code: 'MISSING_FIELD',
      field: 'INVOICE',
    });
    expect(errorOf(() => parsePayload(OfficeBillPayload, { ...base, INVOICE: '' }))).toEqual({
      code: 'MISSING_FIELD',
      field: 'INVOICE',
    });
    expect(errorOf(() => parsePayload(OfficeBillPayload, { ...base, AMOUNT: '22.801' }))).toEqual({
      code: 'BAD_FIELD',
      field: 'AMOUNT',
    });
    expect(errorOf(() => parsePayload(OfficeBillPayload, { ...base, CURRENCY: 'XYZ' }))).toEqual({
      code: 'BAD_FIELD',
      field: 'CURRENCY',
    });
    expect(errorOf(() => parsePayload(OfficeBillPayload, { ...base, EXP_TIME: '2027-08-01' }))).toEqual({
      code: 'BAD_FIELD',
      field: 'EXP_TIME',
    });
  });

  it('validate IBANs, recipients and provider accounts', () => {
    const transfer = parsePayload(BankTransferPayload, {
      ...base,
      IBAN: 'BG80 BNBG 9661 1020 3456 78',
      NAME: 'Acme',
    });
    expect(transfer.iban).toBe('BG80BNBG96611020345678');
    expect(
      errorOf(() =>
        parsePayload(BankTransferPayload, { ...base, IBAN: 'BG80BNBG96611020345679', NAME: 'A' }),
      ),
    ).toEqual({ code: 'BAD_FIELD', field: 'IBAN' });
    expect(
      errorOf(() => parsePayload(MoneySendOfficePayload, { ...base, RCPT_NAME: 'Ivan Petrov' })),
    ).toEqual({
      code: 'MISSING_FIELD',
      field: 'RCPT_ID',
    });
    expect(
      errorOf(() =>
        parsePayload(MoneySendProviderPayload, { ...base, RCPT: 'not-an-email', RCPT_TYPE: 'EMAIL' }),
      ),
    ).toEqual({ code: 'BAD_FIELD', field: 'RCPT' });
  });
});
