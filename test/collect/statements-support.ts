import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { merchantNotificationsWorkflowId } from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import type { CamtEntry } from './camt-builder.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from './epay-client.ts';
import { obligationRow, statusHistory } from './read-model.ts';

/**
 * What the bank-statement tests share (statements.test.ts, statements-reversals.test.ts): a platform
 * with the watched folder, the merchant's obligations and notifications, the operator's admin calls.
 */

export const ADMIN_TOKEN = 'admin-token-for-statement-tests-0123456789';
/** Above the platform's 1 MiB body limit: statement uploads have their own (api/app.ts). */
export const MAX_BYTES = 3 * 1024 * 1024;
export let platform: TestPlatform;
export let merchant: { min: string; secret: string };
export let folder: string;

/** One platform per test file, with the watched folder and the statements' own body limit. */
export function useStatementPlatform(): void {
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'statements-'));
    platform = await startTestPlatform({
      env: {
        ADMIN_TOKEN,
        COLLECT_STATEMENT_DIR: folder,
        COLLECT_STATEMENT_POLL_INTERVAL: '200ms',
        COLLECT_STATEMENT_MAX_BYTES: String(MAX_BYTES),
      },
    });
    merchant = await platform.createSandboxMerchant();
  });
  afterEach(async () => {
    await expectLedgerBalanced(platform.db);
  });
  afterAll(async () => {
    await platform?.stop();
    await rm(folder, { recursive: true, force: true });
  });
}

// --- the merchant's side: obligations and their notifications -------------------------------------

export interface Registered {
  idn: string;
  invoice: string;
}

/** A deposit slip (the payer writes the IDN on the transfer) or an office bill, of `amount` BGN. */
export async function register(
  amount: string,
  path = '/office/reg_vnbel.cgi',
  expiresInMs = 86_400_000,
  currency = 'BGN',
) {
  const invoice = newInvoice();
  const answer = await getText(
    `${platform.collectUrl}${path}`,
    signedPacket(
      {
        MIN: merchant.min,
        INVOICE: invoice,
        AMOUNT: amount,
        CURRENCY: currency,
        EXP_TIME: expTimeIn(expiresInMs),
      },
      merchant.secret,
    ),
  );
  expect(answer.status, answer.body).toBe(200);
  return { idn: answer.fields.IDN ?? '', invoice } satisfies Registered;
}

export const obligation = (idn: string) => obligationRow(platform.db, idn);
export const history = (idn: string) => statusHistory(platform.db, idn);

/** Notification lines the sandbox merchant received for an invoice. */
export const notificationsOf = (invoice: string) =>
  platform.sandbox.merchant.notifications
    .filter((post) => post.min === merchant.min)
    .flatMap((post) => post.lines)
    .filter((line) => line.invoice === invoice);

/** Once the obligation's workflow closed and the merchant's deliveries ended: nothing more can come. */
export async function notifiedOnce(registered: Registered) {
  await eventually(async () => {
    const described = await platform.client.workflow.getHandle(`collect-${registered.idn}`).describe();
    return described.status.name === 'COMPLETED' ? true : undefined;
  });
  await eventually(async () => (notificationsOf(registered.invoice).length > 0 ? true : undefined));
  await platform.client.workflow.getHandle(merchantNotificationsWorkflowId(merchant.min)).result();
  expect(notificationsOf(registered.invoice)).toEqual([expect.objectContaining({ status: 'PAID' })]);
}

// --- the operator's side ----------------------------------------------------------------------------

export const admin = (
  method: string,
  urlPath: string,
  init: { body?: string | Buffer | FormData; type?: string; token?: string } = {},
) =>
  fetch(`${platform.apiUrl}/admin${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${init.token ?? ADMIN_TOKEN}`,
      ...(init.type ? { 'content-type': init.type } : {}),
    },
    body: init.body,
  });

export interface Received {
  statementId: string;
  credits: number;
  alreadyImported: number;
  duplicate: boolean;
  skipped: { debits: number; notBooked: number };
}

export async function upload(xml: string | Buffer) {
  const response = await admin('POST', '/collect/statements', { body: xml, type: 'application/xml' });
  const body = (await response.json()) as {
    statements: Received[];
    error?: { code: string; fields?: unknown };
  };
  return { status: response.status, body };
}

export async function imported(statementId: string) {
  return eventually(
    async () => {
      const response = await admin('GET', `/collect/statements/${statementId}`);
      const statement = (await response.json()) as {
        status: string;
        credits: number;
        settled: number;
        review: number;
      };
      return statement.status === 'imported' ? statement : undefined;
    },
    30_000,
    `statement ${statementId} imported`,
  );
}

export interface ReviewItem {
  id: number;
  entryRef: string;
  reason: string;
  reasonDetail: string | null;
  idn: string | null;
  obligationIdn: string | null;
  amount: string;
  state: string;
}

export async function reviewOf(statementId: string): Promise<ReviewItem[]> {
  const response = await admin('GET', '/collect/statements/review?limit=500');
  expect(response.status).toBe(200);
  const { items } = (await response.json()) as { items: (ReviewItem & { statementId: string })[] };
  return items.filter((item) => item.statementId === statementId);
}

let statementCounter = 0;
export const statementId = (prefix: string) => `${prefix}-${Date.now()}-${++statementCounter}`;
export const credit = (
  ref: string,
  amount: string,
  remittance: string,
  extra: Partial<CamtEntry> = {},
): CamtEntry => ({
  ref: `${ref}-${Date.now()}-${++statementCounter}`,
  amount,
  ustrd: [remittance],
  ...extra,
});
