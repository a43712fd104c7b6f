import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { collectOneTouchPayments } from '../../db/schema/collect-one-touch.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * What the one-touch tests share (one-touch.test.ts, one-touch-payments.test.ts): a platform with two
 * applications, the GET calls a one-touch client makes, pairing a device, the error shape.
 */

export const ADMIN_TOKEN = 'admin-token-for-one-touch-tests-0123456789';
export let platform: TestPlatform;
export let app: { appId: string; secret: string };
export let otherApp: { appId: string; secret: string };

/** One platform per test file, with two one-touch applications. */
export function useOneTouchPlatform(): void {
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
    app = await platform.createOneTouchApp({ name: 'Shop app' });
    otherApp = await platform.createOneTouchApp({ name: 'Other app' });
  });
  afterEach(async () => {
    await expectLedgerBalanced(platform.db);
  });
  afterAll(async () => {
    await platform?.stop();
  });
}

export type Instrument = { ID: string; STATUS: string };
export type Answer = Record<string, unknown> & {
  status: 'OK' | 'ERR';
  err?: string;
  field?: string;
  payment?: Record<string, unknown>;
};

/** GET a one-touch path; `params` may be a list of pairs to send a parameter twice. */
export async function call(path: string, params: Record<string, string> | [string, string][]) {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`${platform.collectUrl}${path}?${query}`);
  return { status: response.status, body: (await response.json()) as Answer };
}

export const instrumentsOf = (answer: Answer) => (answer.payment?.PAYMENT_INSTRUMENTS ?? []) as Instrument[];

export const CODE_GET = '/xdev/api/api/code/get';
export const TOKEN_GET = '/xdev/api/api/token/get';
export const INVALIDATE = '/xdev/api/api/token/invalidate';
export const CHECK = '/xdev/api/payment/check';
export const INIT = '/xdev/api/payment/init';
export const SEND = '/xdev/api/payment/send/status';
export const NOREG = '/xdev/api/api/payment/noreg/send/status';

let keyCounter = 0;
/** Pairs a device with an application the way a one-touch client does; resolves with its token. */
export async function pair(deviceId: string, appId = app.appId) {
  const code = await call(CODE_GET, { APPID: appId, DEVICEID: deviceId, KEY: String(++keyCounter) });
  expect(code.status).toBe(200);
  const token = await call(TOKEN_GET, { APPID: appId, DEVICEID: deviceId, CODE: String(code.body.code) });
  expect(token.status).toBe(200);
  return String(token.body.TOKEN);
}

export const expectError = (
  answer: { status: number; body: Answer },
  status: number,
  err: string,
  field?: string,
) => {
  expect({ status: answer.status, err: answer.body.err, field: answer.body.field }).toEqual({
    status,
    err,
    field,
  });
  expect(answer.body.status).toBe('ERR');
  expect(typeof answer.body.errm).toBe('string');
};

export const countPayments = async (id?: string) => {
  const [row] = await platform.db
    .select({ n: count() })
    .from(collectOneTouchPayments)
    .where(id === undefined ? undefined : eq(collectOneTouchPayments.id, id));
  return row?.n;
};
