import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectMerchants, collectObligations } from '../../db/schema/collect.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { PRODUCTION_TEST_ENV } from '../support/production-env.ts';
import { holdWithCard } from './card-client.ts';
import { expTimeIn, getText, newInvoice, postForm, signedPacket, type TextReply } from './epay-client.ts';

const ADMIN_TOKEN = 'admin-token-for-collect-tests-0123456789';
let platform: TestPlatform;
let merchant: { min: string; secret: string };
let other: { min: string; secret: string };

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  merchant = await platform.createMerchant({ name: 'Endpoint merchant' });
  other = await platform.createMerchant({ name: 'Other merchant' });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const url = (path: string) => `${platform.collectUrl}${path}`;
const call = (path: string, fields: Record<string, string>, secret = merchant.secret) =>
  getText(url(path), signedPacket(fields, secret));
const bill = (extra: Record<string, string> = {}) => ({
  MIN: merchant.min,
  INVOICE: newInvoice(),
  AMOUNT: '22.80',
  EXP_TIME: expTimeIn(86_400_000),
  DESCR: 'Order',
  ENCODING: 'utf-8',
  ...extra,
});
const obligationCount = async () =>
  (await platform.db.select({ n: count() }).from(collectObligations))[0]?.n ?? 0;

function expectError(reply: TextReply, status: number, code: string, field?: string) {
  expect(reply.status, reply.body).toBe(status);
  expect(reply.fields.ERR, reply.body).toBe(code);
  expect(reply.fields.ERRMSG).toBeTruthy();
  expect(reply.fields.FIELD).toBe(field);
}

describe('GET /office/reg_bill.cgi', () => {
  it('registers an obligation and answers IDN=<10 digits> as text', async () => {
    const fields = bill();
    const reply = await call('/office/reg_bill.cgi', fields);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(reply.body).toMatch(/^IDN=[1-8]\d{9}\n$/);
    const [row] = await platform.db
      .select()
      .from(collectObligations)
      .where(eq(collectObligations.idn, reply.fields.IDN ?? ''));
    expect(row).toMatchObject({
      merchantMin: merchant.min,
      invoice: fields.INVOICE,
      amountMinor: 2280,
      status: 'PENDING',
    });
  });

  it('answers the same IDN for the same packet, and DUPLICATE_INVOICE for another with the same INVOICE', async () => {
    const fields = bill();
    const first = await call('/office/reg_bill.cgi', fields);
    const again = await call('/office/reg_bill.cgi', fields);
    expect(again.status).toBe(200);
    expect(again.fields.IDN).toBe(first.fields.IDN);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same fields in another order (and without ENCODING) are the same registration.
    const { ENCODING: _e, ...rest } = fields;
    const reordered = Object.fromEntries(Object.entries(rest).reverse());
    expect((await call('/office/reg_bill.cgi', reordered)).fields.IDN).toBe(first.fields.IDN);
    const before = await obligationCount();
    expectError(
      await call('/office/reg_bill.cgi', { ...fields, AMOUNT: '22.81' }),
      409,
      'DUPLICATE_INVOICE',
      'INVOICE',
    );
    expect(await obligationCount()).toBe(before);
  });

  it('the same packet sent many times at once: one obligation, every answer its IDN, its row kept', async () => {
    for (let round = 0; round < 5; round++) {
      const fields = bill();
      const replies = await Promise.all(
        Array.from({ length: 12 }, () => call('/office/reg_bill.cgi', fields)),
      );
      const idns = new Set(replies.map((reply) => reply.fields.IDN));
      expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
      expect(idns.size).toBe(1);
      // A replay that started the workflow first never makes the first request take its row back.
      const rows = await platform.db
        .select()
        .from(collectObligations)
        .where(eq(collectObligations.invoice, fields.INVOICE));
      expect(rows.map((row) => row.idn)).toEqual([...idns]);
    }
  });

  it("accepts lower-case parameter names, a POST form body and ePay's own /ezp path", async () => {
    const lower = signedPacket(bill(), merchant.secret);
    const reply = await getText(url('/office/reg_bill.cgi'), {
      encoded: lower.ENCODED,
      checksum: lower.CHECKSUM,
    });
    expect(reply.body).toMatch(/^IDN=\d{10}\n$/);
    expect((await postForm(url('/office/reg_bill.cgi'), signedPacket(bill(), merchant.secret))).status).toBe(
      200,
    );
    expect((await call('/ezp/reg_bill.cgi', bill())).body).toMatch(/^IDN=\d{10}\n$/);
  });

  it('refuses bad requests with the exact error and registers nothing', async () => {
    const before = await obligationCount();
    const good = signedPacket(bill(), merchant.secret);
    const cases: [string, () => Promise<TextReply>, number, string, string?][] = [
      [
        'no ENCODED',
        () => getText(url('/office/reg_bill.cgi'), { CHECKSUM: good.CHECKSUM }),
        400,
        'MISSING_FIELD',
        'ENCODED',
      ],
      [
        'no CHECKSUM',
        () => getText(url('/office/reg_bill.cgi'), { ENCODED: good.ENCODED }),
        400,
        'MISSING_FIELD',
        'CHECKSUM',
      ],
      [
        'not base64',
        () => getText(url('/office/reg_bill.cgi'), { ENCODED: '%%%', CHECKSUM: good.CHECKSUM }),
        400,
        'BAD_ENCODED',
      ],
      [
        'not KEY=VALUE',
        () =>
          getText(url('/office/reg_bill.cgi'), {
            ENCODED: Buffer.from('hello').toString('base64'),
            CHECKSUM: good.CHECKSUM,
          }),
        400,
        'BAD_ENCODED',
      ],
      [
        'no MIN',
        () => call('/office/reg_bill.cgi', { INVOICE: '1', AMOUNT: '1.00' }),
        400,
        'MISSING_FIELD',
        'MIN',
      ],
      ['malformed MIN', () => call('/office/reg_bill.cgi', bill({ MIN: 'X1' })), 400, 'BAD_FIELD', 'MIN'],
      [
        'unknown MIN',
        () => call('/office/reg_bill.cgi', bill({ MIN: 'D000000001' })),
        401,
        'UNKNOWN_MERCHANT',
      ],
      [
        'tampered ENCODED',
        () =>
          getText(url('/office/reg_bill.cgi'), {
            ENCODED: signedPacket(bill({ AMOUNT: '1.00' }), merchant.secret).ENCODED,
            CHECKSUM: good.CHECKSUM,
          }),
        401,
        'BAD_CHECKSUM',
      ],
      ['wrong secret', () => call('/office/reg_bill.cgi', bill(), 'not-the-secret'), 401, 'BAD_CHECKSUM'],
      [
        "another merchant's secret",
        () => call('/office/reg_bill.cgi', bill(), other.secret),
        401,
        'BAD_CHECKSUM',
      ],
      [
        'no INVOICE',
        () => call('/office/reg_bill.cgi', bill({ INVOICE: '' })),
        400,
        'MISSING_FIELD',
        'INVOICE',
      ],
      ['no AMOUNT', () => call('/office/reg_bill.cgi', bill({ AMOUNT: '' })), 400, 'MISSING_FIELD', 'AMOUNT'],
      [
        '3 decimals',
        () => call('/office/reg_bill.cgi', bill({ AMOUNT: '22.801' })),
        400,
        'BAD_FIELD',
        'AMOUNT',
      ],
      ['negative', () => call('/office/reg_bill.cgi', bill({ AMOUNT: '-5.00' })), 400, 'BAD_FIELD', 'AMOUNT'],
      ['zero', () => call('/office/reg_bill.cgi', bill({ AMOUNT: '0.00' })), 400, 'BAD_FIELD', 'AMOUNT'],
      [
        'bad CURRENCY',
        () => call('/office/reg_bill.cgi', bill({ CURRENCY: 'GBP' })),
        400,
        'BAD_FIELD',
        'CURRENCY',
      ],
      [
        'malformed EXP_TIME',
        () => call('/office/reg_bill.cgi', bill({ EXP_TIME: '2030-01-01' })),
        400,
        'BAD_FIELD',
        'EXP_TIME',
      ],
      [
        'past EXP_TIME',
        () => call('/office/reg_bill.cgi', bill({ EXP_TIME: '01.01.2020' })),
        400,
        'BAD_FIELD',
        'EXP_TIME',
      ],
      [
        'far EXP_TIME',
        () => call('/office/reg_bill.cgi', bill({ EXP_TIME: '01.01.2099' })),
        400,
        'BAD_FIELD',
        'EXP_TIME',
      ],
      [
        'bad ENCODING',
        () => call('/office/reg_bill.cgi', bill({ ENCODING: 'koi8-r' })),
        400,
        'BAD_FIELD',
        'ENCODING',
      ],
    ];
    for (const [name, run, status, code, field] of cases) {
      const reply = await run();
      expect(reply.status, `${name}: ${reply.body}`).toBe(status);
      expect(reply.fields.ERR, name).toBe(code);
      expect(reply.fields.FIELD, name).toBe(field);
    }
    expect(await obligationCount()).toBe(before);
  });
});

describe('registrations of the other kinds', () => {
  it('GET /office/reg_vnbel.cgi registers a deposit slip', async () => {
    const reply = await call('/office/reg_vnbel.cgi', bill({ NAME: 'Ivan Petrov' }));
    expect(reply.status, reply.body).toBe(200);
    expect(reply.fields).toMatchObject({ STATUS: 'PENDING' });
    expect(reply.fields.IDN).toMatch(/^\d{10}$/);
    expect(reply.fields.EXP_TIME).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
    expectError(
      await call('/office/reg_vnbel.cgi', bill({ NAME: 'x'.repeat(71) })),
      400,
      'BAD_FIELD',
      'NAME',
    );
  });

  it('GET /send/send_vnbel.cgi orders a bank transfer to a valid IBAN', async () => {
    const reply = await call(
      '/send/send_vnbel.cgi',
      bill({ IBAN: 'BG80 BNBG 9661 1020 3456 78', NAME: 'Acme Ltd' }),
    );
    expect(reply.status, reply.body).toBe(200);
    const [row] = await platform.db
      .select()
      .from(collectObligations)
      .where(eq(collectObligations.idn, reply.fields.IDN ?? ''));
    expect(row?.details).toEqual({ iban: 'BG80BNBG96611020345678', beneficiaryName: 'Acme Ltd' });
    expectError(
      await call('/send/send_vnbel.cgi', bill({ IBAN: 'BG80BNBG96611020345679', NAME: 'A' })),
      400,
      'BAD_FIELD',
      'IBAN',
    );
    expectError(
      await call('/send/send_vnbel.cgi', bill({ IBAN: 'BG80BNBG96611020345678' })),
      400,
      'MISSING_FIELD',
      'NAME',
    );
    expectError(
      await call('/send/send_vnbel.cgi', bill({ IBAN: 'BG80BNBG96611020345678', NAME: 'A', BIC: 'NOPE' })),
      400,
      'BAD_FIELD',
      'BIC',
    );
  });

  it('GET /office/send.cgi orders a cash payout to a named recipient', async () => {
    const reply = await call('/office/send.cgi', bill({ RCPT_NAME: 'Ivan Petrov', RCPT_ID: '8001011234' }));
    expect(reply.status, reply.body).toBe(200);
    expect(reply.fields.SYS_CODE).toBe(reply.fields.IDN);
    expect(reply.fields.STATUS).toBe('PENDING');
    expectError(
      await call('/office/send.cgi', bill({ RCPT_ID: '8001011234' })),
      400,
      'MISSING_FIELD',
      'RCPT_NAME',
    );
    expectError(
      await call('/office/send.cgi', bill({ RCPT_NAME: 'Ivan Petrov', RCPT_ID: '12' })),
      400,
      'BAD_FIELD',
      'RCPT_ID',
    );
  });

  it('GET /send/send.cgi credits a provider account at once', async () => {
    const reply = await call('/send/send.cgi', bill({ RCPT: 'ivan@example.com', RCPT_TYPE: 'EMAIL' }));
    expect(reply.status, reply.body).toBe(200);
    const idn = reply.fields.IDN ?? '';
    const paid = await eventually(async () => {
      const [row] = await platform.db
        .select()
        .from(collectObligations)
        .where(eq(collectObligations.idn, idn));
      return row?.status === 'PAID' ? row : undefined;
    });
    expect(paid).toMatchObject({
      kind: 'payout_provider',
      stan: '000000',
      bcode: '000000',
      paidAmountMinor: 2280,
    });
    expectError(
      await call('/send/send.cgi', bill({ RCPT: 'x', RCPT_TYPE: 'IBAN' })),
      400,
      'BAD_FIELD',
      'RCPT_TYPE',
    );
    expectError(
      await call('/send/send.cgi', bill({ RCPT: 'abc', RCPT_TYPE: 'GSM' })),
      400,
      'BAD_FIELD',
      'RCPT',
    );
  });
});

describe('POST /v3main/ (pre-authorisation)', () => {
  const v3 = (fields: Record<string, string>, secret = merchant.secret) =>
    postForm(url('/v3main/'), signedPacket(fields, secret));
  /** REGISTER (PENDING), then the customer's card on the card page (decision 0032): HELD. */
  const register = async (amount = '100.00') => {
    const packet = bill({ PHASE: 'REGISTER', AMOUNT: amount });
    const reply = await v3(packet);
    expect(reply.status, reply.body).toBe(200);
    expect(reply.fields).toMatchObject({ STATUS: 'PENDING', AMOUNT: amount });
    const held = await holdWithCard(platform.collectUrl, packet, merchant.secret);
    expect(held.status, held.html).toBe(200);
    expect(held.html).toContain('Amount held');
    return reply.fields.IDN ?? '';
  };

  it('registers a hold and finalizes at most the held amount, idempotently', async () => {
    const idn = await register();
    expectError(
      await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '100.01' }),
      422,
      'AMOUNT_EXCEEDS_HOLD',
      'AMOUNT',
    );
    const done = await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '80.00' });
    expect(done.status, done.body).toBe(200);
    expect(done.fields).toMatchObject({ IDN: idn, STATUS: 'PAID', AMOUNT: '80.00' });
    expect(done.fields.PAY_TIME).toMatch(/^\d{14}$/);
    const again = await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '80.00' });
    expect(again.fields).toEqual(done.fields);
    expectError(
      await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '70.00' }),
      409,
      'ALREADY_PAID',
    );
    expectError(await v3({ MIN: merchant.min, PHASE: 'REVERSE', IDN: idn }), 409, 'ALREADY_PAID');
  });

  it('reverses a hold; a reversed hold cannot be finalized', async () => {
    const idn = await register();
    const reversed = await v3({ MIN: merchant.min, PHASE: 'REVERSE', IDN: idn });
    expect(reversed.status, reversed.body).toBe(200);
    expect(reversed.fields).toMatchObject({ IDN: idn, STATUS: 'REVERSED' });
    expect((await v3({ MIN: merchant.min, PHASE: 'REVERSE', IDN: idn })).fields.STATUS).toBe('REVERSED');
    expectError(
      await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '1.00' }),
      409,
      'ALREADY_FINAL',
    );
  });

  it("refuses a missing or unknown PHASE, another merchant's hold and a non-hold IDN", async () => {
    const idn = await register();
    expectError(await v3(bill()), 400, 'MISSING_FIELD', 'PHASE');
    expectError(await v3(bill({ PHASE: 'CAPTURE' })), 400, 'BAD_FIELD', 'PHASE');
    expectError(await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn }), 400, 'MISSING_FIELD', 'AMOUNT');
    expectError(
      await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: '12', AMOUNT: '1.00' }),
      400,
      'BAD_FIELD',
      'IDN',
    );
    expectError(
      await v3({ MIN: other.min, PHASE: 'REVERSE', IDN: idn }, other.secret),
      404,
      'NOT_FOUND',
      'IDN',
    );
    const office = (await call('/office/reg_bill.cgi', bill())).fields.IDN ?? '';
    expectError(await v3({ MIN: merchant.min, PHASE: 'REVERSE', IDN: office }), 409, 'WRONG_KIND', 'IDN');
    expectError(
      await v3({ MIN: merchant.min, PHASE: 'REVERSE', IDN: idn }, other.secret),
      401,
      'BAD_CHECKSUM',
    );
  });
});

describe('GET /v3main (change of expiry)', () => {
  it('moves the expiry of an open obligation', async () => {
    const idn = (await call('/office/reg_bill.cgi', bill())).fields.IDN ?? '';
    const newExpiry = expTimeIn(3 * 86_400_000);
    const reply = await call('/v3main', { MIN: merchant.min, IDN: idn, EXP_TIME: newExpiry });
    expect(reply.status, reply.body).toBe(200);
    expect(reply.fields).toEqual({ IDN: idn, STATUS: 'PENDING', EXP_TIME: newExpiry });
    await eventually(async () => {
      const [row] = await platform.db
        .select()
        .from(collectObligations)
        .where(eq(collectObligations.idn, idn));
      return row && Math.abs(row.expiresAt.getTime() - (Date.now() + 3 * 86_400_000)) < 60_000
        ? row
        : undefined;
    });
  });

  it('refuses a past expiry, a missing one, an unknown or foreign IDN', async () => {
    const idn = (await call('/office/reg_bill.cgi', bill())).fields.IDN ?? '';
    expectError(
      await call('/v3main', { MIN: merchant.min, IDN: idn, EXP_TIME: '01.01.2020' }),
      400,
      'BAD_FIELD',
      'EXP_TIME',
    );
    expectError(await call('/v3main', { MIN: merchant.min, IDN: idn }), 400, 'MISSING_FIELD', 'EXP_TIME');
    expectError(
      await call('/v3main', { MIN: merchant.min, IDN: '1000000000', EXP_TIME: expTimeIn(86_400_000) }),
      404,
      'NOT_FOUND',
      'IDN',
    );
    expectError(
      await call('/v3main', { MIN: other.min, IDN: idn, EXP_TIME: expTimeIn(86_400_000) }, other.secret),
      404,
      'NOT_FOUND',
      'IDN',
    );
  });
});

describe('demo endpoints', () => {
  it('check their parameters', async () => {
    const pay = (params: Record<string, string>) => getText(url('/office/pay_bill.cgi'), params);
    expectError(await pay({ IDN: '1234567890' }), 400, 'MISSING_FIELD', 'ACTION');
    expectError(await pay({ ACTION: 'STEAL', IDN: '1234567890' }), 400, 'BAD_FIELD', 'ACTION');
    expectError(await pay({ ACTION: 'PAY' }), 400, 'MISSING_FIELD', 'IDN');
    expectError(await pay({ ACTION: 'PAY', IDN: '12345' }), 400, 'BAD_FIELD', 'IDN');
    expectError(await getText(url('/office/pay_money_send.cgi'), {}), 400, 'MISSING_FIELD', 'SYS_CODE');
    expectError(
      await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: '1234567890' }),
      404,
      'NOT_FOUND',
      'SYS_CODE',
    );
  });

  it('CHECK answers the status; PAY of a payout or a hold is WRONG_KIND', async () => {
    const idn = (await call('/office/reg_bill.cgi', bill())).fields.IDN ?? '';
    const check = await getText(url('/office/pay_bill.cgi'), { ACTION: 'CHECK', IDN: idn });
    expect(check.fields).toMatchObject({ STATUS: 'PENDING', IDN: idn, AMOUNT: '22.80', CURRENCY: 'BGN' });
    const payout =
      (await call('/office/send.cgi', bill({ RCPT_NAME: 'Ivan Petrov', RCPT_ID: '8001011234' }))).fields
        .IDN ?? '';
    expectError(
      await getText(url('/office/pay_bill.cgi'), { ACTION: 'PAY', IDN: payout }),
      409,
      'WRONG_KIND',
    );
  });
});

describe('merchants', () => {
  const admin = (body: unknown) =>
    fetch(`${platform.apiUrl}/admin/collect/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify(body),
    });

  it('are created by the admin endpoint, which shows the secret once and stores it encrypted', async () => {
    const response = await admin({
      name: 'Acme Ltd',
      min: 'D555000111',
      notifyUrl: 'http://127.0.0.1:9/notify',
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { min: string; secret: string };
    expect(created.min).toBe('D555000111');
    expect(created.secret.length).toBeGreaterThanOrEqual(32);
    const [row] = await platform.db
      .select()
      .from(collectMerchants)
      .where(eq(collectMerchants.min, 'D555000111'));
    expect(row?.secretCiphertext).not.toContain(created.secret);
    expect(JSON.stringify(row)).not.toContain(created.secret);
    // The secret works for CHECKSUM.
    const reply = await call('/office/reg_bill.cgi', bill({ MIN: created.min }), created.secret);
    expect(reply.status, reply.body).toBe(200);

    const again = await admin({ name: 'Acme again', min: 'D555000111' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('merchant_exists');
    const bad = await admin({ name: 'X', min: 'D1', billingIdnPrefix: '12' });
    expect(bad.status).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('describes every operation', async () => {
    const document = (await (await fetch(url('/openapi.json'))).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const [path, method] of [
      ['/office/reg_bill.cgi', 'get'],
      ['/v3main/', 'post'],
      ['/v3main', 'get'],
      ['/send/send_vnbel.cgi', 'get'],
      ['/office/reg_vnbel.cgi', 'get'],
      ['/office/send.cgi', 'get'],
      ['/send/send.cgi', 'get'],
      ['/office/pay_bill.cgi', 'get'],
      ['/office/pay_money_send.cgi', 'get'],
    ] as const) {
      expect(document.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect((await fetch(url('/docs'))).status).toBe(200);
  });
});

describe('production mode', () => {
  let production: TestPlatform;
  beforeAll(async () => {
    production = await startTestPlatform({
      env: PRODUCTION_TEST_ENV,
    });
  });
  afterEach(async () => {
    await expectLedgerBalanced(production.db);
  });
  afterAll(async () => {
    await production?.stop();
  });

  it('has no demo endpoints', async () => {
    for (const path of [
      '/office/pay_bill.cgi?ACTION=PAY&IDN=1234567890',
      '/office/pay_money_send.cgi?SYS_CODE=1234567890',
    ]) {
      const reply = await fetch(`${production.collectUrl}${path}`);
      expect(reply.status, path).toBe(404);
    }
  });
});
