import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATES_FILE, rateCard } from '../../datasets/generate-rates.ts';
import { correctNumber } from '../../domain/messaging/phone.ts';
import {
  diallingPlan,
  findOperator,
  formatPrice,
  MCCMNC_PAGE_SIZE,
  networksOfCountry,
  pageOf,
  parseRatesCsv,
  ratesToCsv,
} from '../../domain/messaging/reference-data.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const RATE_HEADER = 'countryIso,mcc,mnc,operatorId,operator,smsPriceEur,chatappPriceEur';

describe('reference data (domain)', () => {
  it('corrects international, national and badly written numbers', () => {
    expect(correctNumber('+359888123456')).toEqual({
      error: null,
      numberType: 'mobile',
      mobile: true,
      countryIso: 'BG',
      e164: '+359888123456',
    });
    expect(correctNumber('0888 123 456', 'BG')).toMatchObject({
      error: null,
      e164: '+359888123456',
      mobile: true,
    });
    expect(correctNumber('00359 888 123 456')).toMatchObject({ error: null, e164: '+359888123456' });
    expect(correctNumber('011 359 888 123 456', 'US')).toMatchObject({ error: null, e164: '+359888123456' });
    expect(correctNumber('+359 2 123 4567')).toMatchObject({
      error: null,
      numberType: 'landline',
      mobile: false,
    });
  });

  it('says why a number cannot be corrected', () => {
    expect(correctNumber('0888123456').error).toBe('country_required');
    expect(correctNumber('hello').error).toBe('not_a_number');
    expect(correctNumber('+999123456789').error).toBe('invalid_country_code');
    expect(correctNumber('+359123')).toEqual({
      error: 'too_short',
      numberType: 'unknown',
      mobile: false,
      countryIso: 'BG',
      e164: null,
    });
    expect(correctNumber('+35988812345678901').error).toBe('too_long');
    expect(correctNumber('+35910000000')).toMatchObject({
      error: 'invalid_number',
      countryIso: 'BG',
      e164: null,
    });
  });

  it('lists the networks of a country, multi-territory networks included', () => {
    expect(networksOfCountry('bg').map((network) => network.operatorId)).toEqual([
      '28401',
      '28403',
      '28405',
      '28407',
      '28409',
      '28411',
      '28413',
    ]);
    // Published once for BL/GF/GP/MF/MQ: found under each of them.
    expect(networksOfCountry('GP').some((network) => network.operatorId === '34001')).toBe(true);
  });

  it('pages from 1 and returns an empty page past the end', () => {
    expect(pageOf([1, 2, 3], 2, 2)).toEqual({ page: 2, pageSize: 2, total: 3, items: [3] });
    expect(pageOf([1, 2, 3], 3, 2)).toEqual({ page: 3, pageSize: 2, total: 3, items: [] });
  });

  it('finds an operator and the other networks listed with its code', () => {
    const found = findOperator('23450');
    expect(found?.network).toMatchObject({ countryIso: 'GG', status: 'Operational' });
    expect(found?.otherListings.map((network) => network.countryIso)).toEqual(['JE', 'GB']);
    expect(findOperator('28499')).toBeUndefined();
  });

  it("reads a country's dialling plan from libphonenumber's metadata", () => {
    expect(diallingPlan('bg')).toMatchObject({
      country: 'BG',
      callingCode: '+359',
      internationalPrefix: '00',
      nationalPrefix: '0',
      mobileNumberExample: '+35943012345',
      mobileNumberLengths: [8, 9],
    });
    // AU accepts several IDD prefixes; the preferred one is named.
    expect(diallingPlan('AU')).toMatchObject({ internationalPrefix: '0011', callingCode: '+61' });
    expect(diallingPlan('US')).toMatchObject({ internationalPrefix: '011', nationalPrefix: '1' });
    expect(diallingPlan('XX')).toBeUndefined();
  });

  it('formats prices as decimal strings without floats', () => {
    expect(formatPrice(450)).toBe('0.0450');
    expect(formatPrice(12_345)).toBe('1.2345');
    expect(() => formatPrice(0.5)).toThrow(RangeError);
  });

  it('writes and reads the rate card as RFC 4180 CSV', () => {
    const rates = [
      {
        countryIso: 'AU',
        mcc: '505',
        mnc: '13',
        operatorId: '50513',
        operator: 'Railcorp, "NSW"',
        smsPriceEur: '0.0600',
        chatappPriceEur: '0.0200',
      },
    ];
    const csv = ratesToCsv(rates);
    expect(csv).toBe(`${RATE_HEADER}\r\nAU,505,13,50513,"Railcorp, ""NSW""",0.0600,0.0200\r\n`);
    expect(parseRatesCsv(csv)).toEqual(rates);
    expect(() => parseRatesCsv('a,b\r\n')).toThrow(/header/);
    expect(() => parseRatesCsv(`${RATE_HEADER}\r\nBG,284,01,28401,A1,0.045,0.0100\r\n`)).toThrow(/bad price/);
  });

  it('ships the rate card that the generator produces (regenerate with npx tsx datasets/generate-rates.ts)', () => {
    const shipped = readFileSync(RATES_FILE, 'utf8');
    expect(shipped).toBe(ratesToCsv(rateCard()));
    const rates = parseRatesCsv(shipped);
    expect(rates.length).toBeGreaterThan(1000);
    expect(rates.find((rate) => rate.operatorId === '28401')).toEqual({
      countryIso: 'BG',
      mcc: '284',
      mnc: '01',
      operatorId: '28401',
      operator: 'A1 Bulgaria',
      smsPriceEur: '0.0250',
      chatappPriceEur: '0.0100',
    });
  });
});

describe('reference data API', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const api = messagingClient(() => platform);

  describe('POST /numberCorrection', () => {
    it('corrects an international number', async () => {
      const { status, json } = await api('POST', '/numberCorrection', { body: { number: '+359888123456' } });
      expect(status).toBe(200);
      expect(json).toEqual({
        Error: null,
        Number: '+359888123456',
        NumberType: 'mobile',
        CountryIso: 'BG',
        Mobile: true,
        NumberE164: '+359888123456',
      });
    });

    it('corrects a national number with its country', async () => {
      const { status, json } = await api('POST', '/numberCorrection', {
        body: { number: '0888123456', country: 'bg' },
      });
      expect(status).toBe(200);
      expect(json).toEqual({
        Error: null,
        Number: '0888123456',
        NumberType: 'mobile',
        CountryIso: 'BG',
        Mobile: true,
        NumberE164: '+359888123456',
      });
    });

    it('answers an invalid number with 200 and Error set', async () => {
      const { status, json } = await api('POST', '/numberCorrection', { body: { number: '+35910000000' } });
      expect(status).toBe(200);
      expect(json).toEqual({
        Error: 'invalid_number',
        Number: '+35910000000',
        NumberType: 'unknown',
        CountryIso: 'BG',
        Mobile: false,
        NumberE164: null,
      });
    });
  });

  it('GET /mccmnc/{country} lists networks, 50 a page', async () => {
    const first = await api('GET', '/mccmnc/bg');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ country: 'BG', page: 1, pageSize: MCCMNC_PAGE_SIZE, total: 7 });
    expect((first.json.items as unknown[])[0]).toEqual({
      mcc: '284',
      mnc: '01',
      operatorId: '28401',
      brand: 'A1 BG',
      operator: 'A1 Bulgaria',
      status: 'Operational',
      countryIso: 'BG',
      countries: ['BG'],
      countryName: 'Bulgaria',
    });

    const total = networksOfCountry('GB').length;
    const second = await api('GET', '/mccmnc/GB?Page=2');
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ country: 'GB', page: 2, pageSize: 50, total });
    expect(second.json.items).toHaveLength(total - 50);

    const past = await api('GET', '/mccmnc/GB?Page=3');
    expect(past.status).toBe(200);
    expect(past.json).toMatchObject({ page: 3, total, items: [] });
  });

  it('GET /operators/{operatorId} returns the operator with its country', async () => {
    const { status, json } = await api('GET', '/operators/28405');
    expect(status).toBe(200);
    expect(json).toEqual({
      mcc: '284',
      mnc: '05',
      operatorId: '28405',
      brand: 'Yettel',
      operator: 'Yettel Bulgaria',
      status: 'Operational',
      countryIso: 'BG',
      countries: ['BG'],
      countryName: 'Bulgaria',
      otherListings: [],
    });
  });

  it('GET /prefixes/{country} returns the dialling plan', async () => {
    const { status, json } = await api('GET', '/prefixes/BG');
    expect(status).toBe(200);
    expect(json).toEqual({
      country: 'BG',
      callingCode: '+359',
      internationalPrefix: '00',
      internationalPrefixPattern: '00',
      nationalPrefix: '0',
      mobileNumberExample: '+35943012345',
      mobileNumberPattern: '(?:43[07-9]|99[69]\\d)\\d{5}|(?:8[7-9]|98)\\d{7}',
      mobileNumberLengths: [8, 9],
    });
  });

  describe('GET /rates/', () => {
    it('returns JSON by default, prices as decimal strings (the synthetic tariff without a price list)', async () => {
      const { status, json } = await api('GET', '/rates/?country=BG');
      expect(status).toBe(200);
      expect(json.priceList).toBeNull();
      expect(json.country).toBe('BG');
      expect(json.items).toHaveLength(6);
      expect((json.items as unknown[])[0]).toEqual({
        countryIso: 'BG',
        mcc: '284',
        mnc: '01',
        operatorId: '28401',
        operator: 'A1 Bulgaria',
        smsPrice: '0.0250',
        currency: 'EUR',
        chatappPrice: '0.0100',
        source: 'tariff',
        // 0.1.0's fields stay for its clients.
        smsPriceEur: '0.0250',
        chatappPriceEur: '0.0100',
      });
      const all = await api('GET', '/rates/');
      const allRates = all.json.items as { smsPrice: unknown }[];
      expect(allRates.length).toBe(rateCard().length);
      expect(allRates.every((rate) => typeof rate.smsPrice === 'string')).toBe(true);
    });

    it('returns CSV with a header line on format=csv, also without the trailing slash', async () => {
      for (const path of ['/rates/?format=csv&country=BG', '/rates?format=csv&country=BG']) {
        const response = await fetch(`${platform.baseUrl}${path}&at=${platform.token}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        const lines = (await response.text()).trimEnd().split('\r\n');
        expect(lines[0]).toBe(
          'countryIso,mcc,mnc,operatorId,operator,smsPrice,currency,chatappPrice,source,smsPriceEur,chatappPriceEur',
        );
        expect(lines[1]).toBe('BG,284,01,28401,A1 Bulgaria,0.0250,EUR,0.0100,tariff,0.0250,0.0100');
        expect(lines).toHaveLength(7);
      }
    });
  });

  describe('authentication', () => {
    it.each([
      ['missing', null, 'The access token (query parameter `at`) is missing'],
      ['wrong', 'at_not-a-token', 'The access token (query parameter `at`) is not valid'],
    ])('answers a %s token with 401', async (_, token, message) => {
      for (const [method, path] of [
        ['GET', '/mccmnc/BG'],
        ['GET', '/operators/28401'],
        ['GET', '/prefixes/BG'],
        ['GET', '/rates/'],
        ['POST', '/numberCorrection'],
      ] as const) {
        const { status, json } = await api(method, path, {
          token,
          body: method === 'POST' ? { number: '+359888123456' } : undefined,
        });
        expect(status, `${method} ${path}`).toBe(401);
        expect(json).toEqual({ error: { code: 'unauthorized', message } });
      }
    });
  });

  describe('bad input', () => {
    const cases: [string, 'GET' | 'POST', string, unknown, number, string, string | undefined][] = [
      ['Page 0', 'GET', '/mccmnc/BG?Page=0', undefined, 400, 'validation_failed', 'Page'],
      ['negative Page', 'GET', '/mccmnc/BG?Page=-1', undefined, 400, 'validation_failed', 'Page'],
      ['fractional Page', 'GET', '/mccmnc/BG?Page=1.5', undefined, 400, 'validation_failed', 'Page'],
      ['non-numeric Page', 'GET', '/mccmnc/BG?Page=abc', undefined, 400, 'validation_failed', 'Page'],
      ['empty Page', 'GET', '/mccmnc/BG?Page=', undefined, 400, 'validation_failed', 'Page'],
      ['malformed country', 'GET', '/mccmnc/BGR', undefined, 400, 'validation_failed', 'country'],
      ['unknown country (mccmnc)', 'GET', '/mccmnc/XX', undefined, 404, 'not_found', undefined],
      ['unknown country (prefixes)', 'GET', '/prefixes/XX', undefined, 404, 'not_found', undefined],
      ['malformed country (prefixes)', 'GET', '/prefixes/1', undefined, 400, 'validation_failed', 'country'],
      ['malformed operatorId', 'GET', '/operators/284-01', undefined, 400, 'validation_failed', 'operatorId'],
      ['too short operatorId', 'GET', '/operators/2840', undefined, 400, 'validation_failed', 'operatorId'],
      ['unknown operatorId', 'GET', '/operators/28499', undefined, 404, 'not_found', undefined],
      ['bad format', 'GET', '/rates/?format=xml', undefined, 400, 'validation_failed', 'format'],
      ['bad rates country', 'GET', '/rates/?country=BGR', undefined, 400, 'validation_failed', 'country'],
      ['unknown rates country', 'GET', '/rates/?country=XX', undefined, 404, 'not_found', undefined],
      ['missing number', 'POST', '/numberCorrection', {}, 400, 'validation_failed', 'number'],
      [
        'number of wrong type',
        'POST',
        '/numberCorrection',
        { number: 359888123456 },
        400,
        'validation_failed',
        'number',
      ],
      ['empty number', 'POST', '/numberCorrection', { number: '' }, 400, 'validation_failed', 'number'],
      [
        'unknown country',
        'POST',
        '/numberCorrection',
        { number: '0888123456', country: 'XX' },
        400,
        'validation_failed',
        'country',
      ],
      [
        'country of wrong type',
        'POST',
        '/numberCorrection',
        { number: '0888123456', country: 359 },
        400,
        'validation_failed',
        'country',
      ],
    ];

    it.each(cases)('%s', async (_, method, path, body, expectedStatus, code, field) => {
      const { status, json } = await api(method, path, { body });
      expect(status).toBe(expectedStatus);
      expect(json.error?.code).toBe(code);
      if (field) expect(json.error?.fields?.map((error) => error.field)).toEqual([field]);
      else expect(json.error?.fields).toBeUndefined();
    });
  });
});
