import { createSign, randomBytes } from 'node:crypto';
import { and, asc, desc, eq } from 'drizzle-orm';
import { issueApiKey } from '../../credentials/lending/api-keys.ts';
import { openMailBody } from '../../credentials/lending/sealed-mail.ts';
import {
  createLendingTenant as createTenant,
  type NewLendingTenant,
} from '../../credentials/lending/tenants.ts';
import { lendingEmailOutbox } from '../../db/schema/lending.ts';
import { lendingLoanStatusHistory } from '../../db/schema/lending-loans.ts';
import { checksumOf } from '../../domain/epay-merchant.ts';
import type { CustomerDetails } from '../../domain/lending/customers.ts';
import { loanWorkflowId } from '../../domain/lending/loan-process.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import { historyOf as workflowHistoryOf } from '../support/workflow-history.ts';

/**
 * Test support of the lending platform (the contract in the helpers' notes): tenants with one key per
 * permission level, customers registered through the public API, and a small HTTP client.
 */

export interface LendingTestTenant {
  tenantId: string;
  stagingTenantId: string;
  keys: { frontOffice: string; management: string; paymentOptions: string; all: string };
  /** The tenant's (only) site domain. */
  domain: string;
}

/** The full URL of a spec path, e.g. `lendingUrl(platform, '/Customer/Details')`. */
export const lendingUrl = (platform: Pick<TestPlatform, 'apiUrl'>, specPath: string) =>
  `${platform.apiUrl}/lending/PublicApi/v7-12${specPath}`;

/** A tenant (and its staging twin) created as the operator would, with a key of each level and one with all. */
export async function createLendingTenant(
  platform: Pick<TestPlatform, 'db'>,
  options: Partial<NewLendingTenant> = {},
): Promise<LendingTestTenant> {
  const domain = `t-${randomBytes(4).toString('hex')}.lending.test`;
  const tenant = await createTenant(platform.db, {
    name: `Tenant ${domain}`,
    siteDomains: [domain],
    ...options,
  });
  const key = async (permissions: ('front_office' | 'management' | 'payment_options')[]) =>
    (await issueApiKey(platform.db, { tenantId: tenant.tenantId, permissions, label: 'test' })).apiKey;
  return {
    tenantId: tenant.tenantId,
    stagingTenantId: tenant.stagingTenantId,
    keys: {
      frontOffice: await key(['front_office']),
      management: await key(['management']),
      paymentOptions: await key(['payment_options']),
      all: await key(['front_office', 'management', 'payment_options']),
    },
    domain: tenant.siteDomains[0] ?? domain,
  };
}

export interface LendingRequest {
  /** `lender_ApiKey`; null sends none. */
  key?: string | null;
  /** `lender_UserAuthToken`. */
  token?: string;
  query?: Record<string, string | number | undefined>;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface LendingAnswer<T = Record<string, unknown>> {
  status: number;
  body: T & { error?: { code: string; message: string; fields?: { field: string; message: string }[] } };
  headers: Headers;
}

/** Calls a spec path of the lending platform over HTTP, as an integrator would. */
export async function lendingCall<T = Record<string, unknown>>(
  platform: Pick<TestPlatform, 'apiUrl'>,
  method: string,
  specPath: string,
  request: LendingRequest = {},
): Promise<LendingAnswer<T>> {
  const url = new URL(lendingUrl(platform, specPath));
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.lender_ApiKey = request.key;
  if (request.token) headers.lender_UserAuthToken = request.token;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    ...(request.body !== undefined
      ? { body: typeof request.body === 'string' ? request.body : JSON.stringify(request.body) }
      : {}),
  });
  const text = await response.text();
  const body = (
    response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}
  ) as LendingAnswer<T>['body'];
  return { status: response.status, body, headers: response.headers };
}

/** Statuses in which a processed loan may still wait for the credit bureau's decision. */
const UNDECIDED = ['Origination', 'Reprocessing', 'Collateral'];

/**
 * Process answers once the request is recorded; the bureau's decision arrives through the loan's
 * workflow. The loan once decided, as an integrator polls it with `read` (`GET …/Loans/{loanId}`); a
 * refused Process, or one answered decided already, is answered as it was.
 */
export async function decidedLoan<T extends { status?: unknown }>(
  processed: LendingAnswer<T>,
  read: () => Promise<LendingAnswer<T>>,
  timeoutMs = 30_000,
): Promise<LendingAnswer<T>> {
  if (processed.status !== 200 || !UNDECIDED.includes(String(processed.body.status))) return processed;
  return eventually(
    async () => {
      const loan = await read();
      return loan.status === 200 && UNDECIDED.includes(String(loan.body.status)) ? undefined : loan;
    },
    timeoutMs,
    "the credit bureau's decision",
  );
}

/** Registers a customer through Customer/Register; resolves with the token and the credentials. */
export async function registerCustomer(
  platform: Pick<TestPlatform, 'apiUrl'>,
  tenant: LendingTestTenant,
  details?: CustomerDetails,
): Promise<{ token: string; customerId: string; login: string; password: string }> {
  const login = `user-${randomBytes(5).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const answer = await lendingCall<{ userAuthToken: string; customerId: string }>(
    platform,
    'POST',
    '/Customer/Register',
    { key: tenant.keys.frontOffice, query: { login, password }, ...(details ? { body: details } : {}) },
  );
  if (answer.status !== 201)
    throw new Error(`Customer/Register: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { token: answer.body.userAuthToken, customerId: answer.body.customerId, login, password };
}

/** Details that make a customer complete (decision 0037), with overrides. */
export const completeDetails = (overrides: Partial<CustomerDetails> = {}): CustomerDetails => ({
  firstName: 'Jane',
  lastName: 'Doe',
  birthDate: '1990-04-01',
  email: `jane-${randomBytes(4).toString('hex')}@example.com`,
  // A number the messaging gateway accepts (valid by libphonenumber): signing codes go to it (decision 0040).
  phone: '+12025550143',
  ssn: '123-45-6789',
  address: { line1: '12 Main Street', city: 'Springfield', state: 'CA', postalCode: '90210', country: 'US' },
  ...overrides,
});

/**
 * The newest e-mail of a tenant to a recipient, from the outbox, with `text` its body opened (the
 * outbox holds it sealed until it is sent; undefined once sent: read it at the SMTP server then).
 */
export async function lastEmailTo(
  platform: Pick<TestPlatform, 'db' | 'config'>,
  tenantId: string,
  recipient: string,
) {
  const [row] = await platform.db
    .select()
    .from(lendingEmailOutbox)
    .where(and(eq(lendingEmailOutbox.tenantId, tenantId), eq(lendingEmailOutbox.recipient, recipient)))
    .orderBy(desc(lendingEmailOutbox.createdAt))
    .limit(1);
  return row && { ...row, text: row.body ? openMailBody(platform.config, row.id, row.body) : undefined };
}

/** The loan's status history as recorded (oldest first). */
export const historyOf = (platform: Pick<TestPlatform, 'db'>, tenant: LendingTestTenant, loanId: string) =>
  platform.db
    .select()
    .from(lendingLoanStatusHistory)
    .where(
      and(
        eq(lendingLoanStatusHistory.tenantId, tenant.tenantId),
        eq(lendingLoanStatusHistory.loanId, loanId),
      ),
    )
    .orderBy(asc(lendingLoanStatusHistory.version));

/**
 * The loan's workflow is at rest: no activity or workflow task in flight, every Update answered (the last
 * event a completed workflow task, an answered Update, or a timer the last task cancelled).
 */
export const loanAtRest = (
  platform: Pick<TestPlatform, 'client'>,
  tenant: LendingTestTenant,
  loanId: string,
) =>
  eventually(
    async () => {
      const events = await workflowHistoryOf(platform.client, loanWorkflowId(tenant.tenantId, loanId));
      const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes).length;
      const closed = events.filter(
        (event) =>
          event.activityTaskCompletedEventAttributes ||
          event.activityTaskFailedEventAttributes ||
          event.activityTaskTimedOutEventAttributes,
      ).length;
      const last = events.at(-1);
      const quiet = Boolean(
        last?.workflowTaskCompletedEventAttributes ||
          last?.workflowExecutionUpdateCompletedEventAttributes ||
          last?.timerCanceledEventAttributes,
      );
      return scheduled === closed && quiet ? true : undefined;
    },
    15_000,
    `loan ${loanId} at rest`,
  );

/** How many Updates named `update` the loan's workflow accepted (a retried request must not add one). */
export const updatesIn = async (
  platform: Pick<TestPlatform, 'client'>,
  tenant: LendingTestTenant,
  loanId: string,
  update: string,
) =>
  (await workflowHistoryOf(platform.client, loanWorkflowId(tenant.tenantId, loanId))).filter(
    (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === update,
  ).length;

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `pending` was answered within `ms` (a request sent while no worker runs waits for one). */
export async function answeredWithin(pending: Promise<unknown>, ms: number): Promise<boolean> {
  let answered = false;
  void pending.then(() => {
    answered = true;
  });
  await pause(ms);
  return answered;
}

/**
 * POSTs a notification to the tenant's receiver as the collection gateway does (decision 0041): the
 * lines, CHECKSUM with the merchant secret, SIGNATURE with the platform's COLLECT_SIGNING_KEY — what a
 * repeated delivery of the gateway looks like.
 */
export async function notifyLending(
  platform: Pick<TestPlatform, 'apiUrl' | 'env'>,
  tenantId: string,
  merchantSecret: string,
  lines: string[],
): Promise<{ status: number; body: string }> {
  const encoded = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8').toString('base64');
  const signature = createSign('RSA-SHA256')
    .update(encoded, 'utf8')
    .sign(platform.env.COLLECT_SIGNING_KEY as string, 'base64');
  const response = await fetch(`${platform.apiUrl}/lending/collect/notifications/${tenantId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ENCODED: encoded,
      CHECKSUM: checksumOf(merchantSecret, encoded),
      SIGNATURE: signature,
    }),
  });
  return { status: response.status, body: await response.text() };
}
