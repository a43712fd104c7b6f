import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createDeskOperator } from '../../credentials/collect/desk-operators.ts';
import type { TestPlatform } from '../support/platform.ts';
import { getText, newInvoice, signedPacket } from './epay-client.ts';

/**
 * A cash desk as a separate client would drive the desk API (plain HTTP + JSON), and a merchant's
 * ePay client registering what the desk pays: shared by the cash-desk tests.
 */

export type Merchant = { min: string; secret: string };

export interface JsonReply<T = Record<string, unknown>> {
  status: number;
  body: T;
}

async function json<T>(response: Response): Promise<JsonReply<T>> {
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

let officeCounter = 100;
/** An operator of a fresh office, created as the platform operator would (credentials, password hashed). */
export async function newOperator(platform: TestPlatform, officeKind: 'office' | 'atm' = 'office') {
  const officeId = String(++officeCounter).padStart(6, '0');
  const login = `desk-${officeId}-${randomUUID().slice(0, 8)}`;
  const password = `pw-${randomUUID()}`;
  const operator = await createDeskOperator(platform.db, {
    login,
    name: `Office ${officeId}`,
    officeId,
    officeKind,
    password,
  });
  return { ...operator, password };
}

export interface Desk {
  token: string;
  operatorId: string;
  officeId: string;
  lookUp(idn: string): Promise<JsonReply>;
  pay(idn: string, key?: string): Promise<JsonReply<DeskAnswerBody>>;
  payOut(
    idn: string,
    identity: { recipientId: string; recipientName: string },
    key?: string,
  ): Promise<JsonReply<DeskAnswerBody>>;
  get(path: string): Promise<JsonReply>;
}

export interface DeskAnswerBody {
  receipt: Record<string, string | number | null> & { receipt: string; status: string };
  replayed: boolean;
  error?: { code: string; message: string; fields?: { field: string; message: string }[] };
}

/** Logs the operator in (POST /desk/api/sessions) and answers a client of the desk API. */
export async function openDesk(
  platform: TestPlatform,
  operator: { login: string; password: string },
): Promise<Desk> {
  const api = `${platform.collectUrl}/desk/api`;
  const login = await json<{ token: string; operator: { id: string; officeId: string } }>(
    await fetch(`${api}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: operator.login, password: operator.password }),
    }),
  );
  expect(login.status, JSON.stringify(login.body)).toBe(201);
  const token = login.body.token;
  const headers = (key?: string) => ({
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    ...(key ? { 'idempotency-key': key } : {}),
  });
  return {
    token,
    operatorId: login.body.operator.id,
    officeId: login.body.operator.officeId,
    lookUp: async (idn) => json(await fetch(`${api}/idns/${idn}`, { headers: headers() })),
    pay: async (idn, key = randomUUID()) =>
      json(
        await fetch(`${api}/payments`, {
          method: 'POST',
          headers: headers(key),
          body: JSON.stringify({ idn }),
        }),
      ),
    payOut: async (idn, identity, key = randomUUID()) =>
      json(
        await fetch(`${api}/payouts`, {
          method: 'POST',
          headers: headers(key),
          body: JSON.stringify({ idn, ...identity }),
        }),
      ),
    get: async (path) => json(await fetch(`${api}${path}`, { headers: headers() })),
  };
}

export const RECIPIENT = { recipientName: 'Ivan Petrov', recipientId: '8001011234' };

/** GET /office/send.cgi through the merchant's ePay client: a cash payout; answers its SYS_CODE (IDN). */
export async function orderPayout(
  platform: TestPlatform,
  merchant: Merchant,
  fields: Record<string, string> = {},
  invoice = newInvoice(),
) {
  const ordered = await getText(
    `${platform.collectUrl}/office/send.cgi`,
    signedPacket(
      {
        MIN: merchant.min,
        INVOICE: invoice,
        AMOUNT: '150.00',
        RCPT_NAME: RECIPIENT.recipientName,
        RCPT_ID: RECIPIENT.recipientId,
        ENCODING: 'utf-8',
        ...fields,
      },
      merchant.secret,
    ),
  );
  expect(ordered.status, ordered.body).toBe(200);
  expect(ordered.fields.STATUS).toBe('PENDING');
  return { idn: ordered.fields.SYS_CODE ?? '', invoice };
}

/** GET /office/reg_bill.cgi through the merchant's ePay client: an office bill; answers its IDN. */
export async function registerBill(
  platform: TestPlatform,
  merchant: Merchant,
  fields: Record<string, string> = {},
  invoice = newInvoice(),
) {
  const registered = await getText(
    `${platform.collectUrl}/office/reg_bill.cgi`,
    signedPacket(
      { MIN: merchant.min, INVOICE: invoice, AMOUNT: '22.80', DESCR: 'Desk test', ...fields },
      merchant.secret,
    ),
  );
  expect(registered.status, registered.body).toBe(200);
  return { idn: registered.fields.IDN ?? '', invoice };
}

/** The notification POSTs the sandbox merchant received about one invoice. */
export const notificationsAbout = (platform: TestPlatform, merchant: Merchant, invoice: string) =>
  platform.sandbox.merchant.notifications.filter(
    (post) => post.min === merchant.min && post.lines.some((line) => line.invoice === invoice),
  );
