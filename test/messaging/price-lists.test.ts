import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePriceList, quoteRates } from '../../domain/messaging/price-lists.ts';
import type { Rate } from '../../domain/messaging/reference-data.ts';
import { type AnswerJson, messagingClient } from '../support/messaging-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * SMS rates from the operator's price lists (decision 0056): uploaded as CSV per account or as the
 * default (admin API and `npm run admin -- messaging:price-list`), read by GET /rates/.
 */

const ADMIN_TOKEN = 'admin-token-for-messaging-price-lists-0123';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HEADER = 'country,mcc,mnc,price,currency';

describe('price lists (domain)', () => {
  const network = (operatorId: string, countryIso = 'BG'): Rate => ({
    countryIso,
    mcc: operatorId.slice(0, 3),
    mnc: operatorId.slice(3),
    operatorId,
    operator: `net ${operatorId}`,
    smsPriceEur: '0.0250',
    chatappPriceEur: '0.0100',
  });
  const destinations = [network('28401'), network('28403'), network('23201', 'AT')];

  it('reads rows, normalising prices to 4 decimals and codes to upper case, in any column order', () => {
    expect(
      parsePriceList(`price,currency,country,mcc,mnc\r\n0.05,eur,bg,284,01\r\n1,BGN,BG,284,\r\n\r\n`),
    ).toEqual({
      ok: true,
      rows: [
        { country: 'BG', mcc: '284', mnc: '01', price: '0.0500', currency: 'EUR' },
        { country: 'BG', mcc: '284', mnc: '', price: '1.0000', currency: 'BGN' },
      ],
    });
  });

  it('names every bad row and column, duplicates included', () => {
    const parsed = parsePriceList(
      `${HEADER}\nBG,284,01,0.0250,EUR\nXX,28,1,0.12345,EURO\nBG,284,01,0.03,EUR\nBG,284\n`,
    );
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.map(({ line, column }) => `${line}.${column}`)).toEqual([
      '3.country',
      '3.mcc',
      '3.mnc',
      '3.price',
      '3.currency',
      '4.mnc',
      '5.row',
    ]);
    expect(parsePriceList('country,mcc,price\nBG,284,0.1\n')).toMatchObject({
      ok: false,
      problems: [
        { line: 1, column: 'mnc' },
        { line: 1, column: 'currency' },
      ],
    });
  });

  it("prices a network by its row, else its country's row, else the tariff only when allowed", () => {
    const list = parsePriceList(
      `${HEADER}\nBG,284,03,0.0400,EUR\nBG,284,,0.0300,EUR\nBG,284,99,0.0900,EUR\n`,
    );
    if (!list.ok) throw new Error('the list is valid');
    const operatorName = (operatorId: string) => `found ${operatorId}`;
    const sandbox = quoteRates(destinations, list.rows, { tariff: true, operatorName });
    expect(sandbox.map((rate) => [rate.operatorId, rate.smsPrice, rate.source, rate.operator])).toEqual([
      ['23201', '0.0250', 'tariff', 'net 23201'],
      ['28401', '0.0300', 'country', 'net 28401'],
      ['28403', '0.0400', 'network', 'net 28403'],
      ['28499', '0.0900', 'network', 'found 28499'],
    ]);
    // Production: no price for Austria, so no line for it.
    const production = quoteRates(destinations, list.rows, { tariff: false, operatorName });
    expect(production.map((rate) => rate.operatorId)).toEqual(['28401', '28403', '28499']);
    expect(quoteRates(destinations, [], { tariff: false, operatorName })).toEqual([]);
  });
});

describe('price lists API', () => {
  let platform: TestPlatform;
  /** A second messaging account: its own list, never another's. */
  let other: { accountId: string; token: string };
  /** A third account without a list of its own: the default list prices it. */
  let plain: { accountId: string; token: string };
  const api = messagingClient(() => platform);

  const admin = async (method: string, adminPath: string, body?: string, contentType = 'text/csv') => {
    const response = await fetch(`${platform.apiUrl}/admin${adminPath}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
      ...(body !== undefined ? { body } : {}),
    });
    return { status: response.status, json: (await response.json()) as AnswerJson };
  };
  const newAccount = async (name: string) =>
    (await admin('POST', '/messaging/accounts', JSON.stringify({ name }), 'application/json'))
      .json as unknown as {
      accountId: string;
      token: string;
    };
  const rates = async (token: string, country = 'BG') => {
    const { status, json } = await api('GET', `/rates/?country=${country}`, { token });
    expect(status).toBe(200);
    return json as { priceList: string | null; items: Record<string, unknown>[] };
  };
  const priceOf = (card: { items: Record<string, unknown>[] }, operatorId: string) =>
    card.items.find((item) => item.operatorId === operatorId);

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
    [other, plain] = await Promise.all([newAccount('Other Ltd'), newAccount('Plain Ltd')]);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it("answers an account's own list: the network row beats the country row", async () => {
    const uploaded = await admin(
      'PUT',
      `/messaging/price-lists/${other.accountId}`,
      `${HEADER}\r\nBG,284,01,0.0310,EUR\r\nBG,284,,0.0200,BGN\r\nAT,232,,0.05,EUR\r\n`,
    );
    expect(uploaded).toMatchObject({ status: 200, json: { scope: other.accountId, rows: 3 } });
    const card = await rates(other.token);
    expect(card.priceList).toBe('account');
    expect(priceOf(card, '28401')).toEqual({
      countryIso: 'BG',
      mcc: '284',
      mnc: '01',
      operatorId: '28401',
      operator: 'A1 Bulgaria',
      smsPrice: '0.0310',
      currency: 'EUR',
      chatappPrice: null,
      source: 'network',
      smsPriceEur: '0.0310',
      chatappPriceEur: null,
    });
    // 0.1.0's EUR fields are null for a price in another currency.
    expect(priceOf(card, '28405')).toMatchObject({
      smsPrice: '0.0200',
      currency: 'BGN',
      source: 'country',
      smsPriceEur: null,
    });
    expect(card.items.every((item) => item.source !== 'tariff')).toBe(true);
    // Sandbox mode: a country the list does not price answers the synthetic tariff.
    expect((await rates(other.token, 'RO')).items.every((item) => item.source === 'tariff')).toBe(true);

    const csv = await fetch(`${platform.baseUrl}/rates/?format=csv&country=BG&at=${other.token}`);
    expect((await csv.text()).split('\r\n')[1]).toBe(
      'BG,284,01,28401,A1 Bulgaria,0.0310,EUR,,network,0.0310,',
    );
  });

  it('prices accounts without a list of their own by the default list, never by another account', async () => {
    expect((await rates(plain.token)).priceList).toBeNull();
    const uploaded = await admin('PUT', '/messaging/price-lists/default', `${HEADER}\nBG,284,,0.0700,EUR\n`);
    expect(uploaded).toMatchObject({ status: 200, json: { scope: 'default', rows: 1 } });
    const card = await rates(plain.token);
    expect(card.priceList).toBe('default');
    expect(priceOf(card, '28401')).toMatchObject({ smsPrice: '0.0700', source: 'country' });
    // The account with its own list keeps it; the default is not mixed in.
    expect(priceOf(await rates(other.token), '28401')).toMatchObject({ smsPrice: '0.0310' });
    expect(priceOf(await rates(platform.token), '28401')).toMatchObject({ smsPrice: '0.0700' });
  });

  it('refuses a bad list naming each row and column, and stores nothing of it', async () => {
    const refused = await admin(
      'PUT',
      `/messaging/price-lists/${other.accountId}`,
      `${HEADER}\nBG,284,01,0.0990,EUR\nBG,284,1,abc,EUR\nZZ,284,05,0.01,XXY\n`,
    );
    expect(refused.status).toBe(400);
    expect(refused.json.error?.code).toBe('price_list_invalid');
    expect(refused.json.error?.fields?.map((field) => field.field)).toEqual([
      'line.3.mnc',
      'line.3.price',
      'line.4.country',
      'line.4.currency',
    ]);
    expect(refused.json.error?.fields?.[1]?.message).toMatch(/^line 3, price: /);
    expect(priceOf(await rates(other.token), '28401')).toMatchObject({ smsPrice: '0.0310' });

    expect((await admin('PUT', '/messaging/price-lists/acc_nobody', `${HEADER}\n`)).status).toBe(404);
    expect((await admin('PUT', '/messaging/price-lists/someone', `${HEADER}\n`)).status).toBe(400);
    const json = await admin('PUT', '/messaging/price-lists/default', '{}', 'application/json');
    expect(json.status).toBe(415);
  });

  it('uploads a list with `npm run admin -- messaging:price-list`, refusing a bad one with its rows', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'price-list-'));
    const good = path.join(dir, 'good.csv');
    const bad = path.join(dir, 'bad.csv');
    writeFileSync(good, `${HEADER}\nBG,284,03,0.0150,EUR\n`);
    writeFileSync(bad, `${HEADER}\nBG,284,03,-1,EUR\n`);
    const command = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'cmd/admin.ts', ...args], {
        cwd: root,
        env: { ...process.env, ...platform.env },
      });
    const { stdout } = await command('messaging:price-list', '--account', plain.accountId, good);
    expect(JSON.parse(stdout)).toMatchObject({ scope: plain.accountId, rows: 1 });
    const card = await rates(plain.token);
    expect(card.priceList).toBe('account');
    expect(priceOf(card, '28403')).toMatchObject({ smsPrice: '0.0150', source: 'network' });

    const failed = await command('messaging:price-list', '--default', bad).catch((error: unknown) => error);
    expect(failed).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('line.2.price: line 2, price:'),
    });
    expect(priceOf(await rates(platform.token), '28403')).toMatchObject({ smsPrice: '0.0700' });
  });
});
