import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { LoanView } from '../../application/lending/index.ts';
import { saveCollectMerchant } from '../../credentials/lending/collect-merchants.ts';
import type { CustomerDetails } from '../../domain/lending/customers.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import { loanWaitingForApproval } from './documents-support.ts';
import { type LendingTestTenant, lendingCall, pause } from './support.ts';

/**
 * Disbursement through the collection gateway (decision 0041), for its tests: the tenant made a merchant
 * of the gateway as the platform operator would, loans brought to Approved over the public API, and
 * what the gateway and the loan record.
 */

export type CollectMerchant = { min: string; secret: string };

/** The notify URL of a tenant's merchant: lending's receiver on this platform. */
export const notifyUrlOf = (platform: TestPlatform, tenantId: string) =>
  `${platform.apiUrl}/lending/collect/notifications/${tenantId}`;

/**
 * The tenant as a merchant of the gateway: created at the gateway with lending's receiver as its notify
 * URL, then its MIN and secret given to lending (through the admin API when a token is given).
 */
export async function makeMerchant(
  platform: TestPlatform,
  tenant: LendingTestTenant,
  adminToken?: string,
): Promise<CollectMerchant> {
  const merchant = await platform.createMerchant({
    name: `Lender ${tenant.tenantId}`,
    notifyUrl: notifyUrlOf(platform, tenant.tenantId),
  });
  if (adminToken) {
    const response = await fetch(
      `${platform.apiUrl}/admin/lending/tenants/${tenant.tenantId}/collect-merchant`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ min: merchant.min, secret: merchant.secret }),
      },
    );
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ min: merchant.min, notifyUrl: notifyUrlOf(platform, tenant.tenantId) });
    expect(JSON.stringify(body)).not.toContain(merchant.secret);
  } else {
    await saveCollectMerchant(platform.db, platform.config, tenant.tenantId, merchant);
  }
  return { min: merchant.min, secret: merchant.secret };
}

/** The recipient identity of `completeDetails()` as a cash desk checks it. */
export const RECIPIENT = { recipientName: 'Jane Doe', recipientId: '123456789' };

/** A loan of 3000 EUR applied for, decided, accepted, its documents signed, approved over the public API: Approved. */
export async function approvedLoan(
  platform: TestPlatform,
  tenant: LendingTestTenant,
  details?: CustomerDetails,
): Promise<string> {
  const loanId = await loanWaitingForApproval(platform, tenant, details);
  const approved = await lendingCall<LoanView>(platform, 'POST', `/Management/Loans/${loanId}/Approve`, {
    key: tenant.keys.management,
  });
  expect(approved.body.status).toBe('Approved');
  return loanId;
}

export interface IssuedDisbursement extends LoanView {
  payout: {
    invoice: string;
    idn: string | null;
    status: string;
    amount: string;
    currency: string;
    expTime: string | null;
  };
}

export const issueDisbursement = (
  platform: TestPlatform,
  tenant: LendingTestTenant,
  loanId: string,
  /** null: no amount at all. */
  amount: string | null = '3000.00',
  key = tenant.keys.management,
) =>
  lendingCall<IssuedDisbursement>(platform, 'POST', `/Management/Loans/${loanId}/IssueDisbursement`, {
    key,
    query: { amount: amount ?? undefined },
  });

export const loanOf = async (platform: TestPlatform, tenant: LendingTestTenant, loanId: string) =>
  (
    await lendingCall<LoanView>(platform, 'GET', `/Management/Loans/${loanId}`, {
      key: tenant.keys.management,
    })
  ).body;

/** A payout issued for an Approved loan: 202, still Approved, collectable at a desk. */
export async function issued(platform: TestPlatform, tenant: LendingTestTenant, loanId: string, attempt = 1) {
  const answer = await issueDisbursement(platform, tenant, loanId);
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  expect(answer.body.status).toBe('Approved');
  expect(answer.body.payout).toMatchObject({
    invoice: `${tenant.tenantId}-${loanId}-${attempt}`,
    status: 'pending',
    amount: '3000.00',
    currency: 'EUR',
  });
  expect(answer.body.payout.idn).toMatch(/^\d{10}$/);
  return { idn: answer.body.payout.idn as string, invoice: answer.body.payout.invoice };
}

/** Waits until the loan is Active (its payout collected and notified); resolves with it. */
export const activeLoan = (
  platform: TestPlatform,
  tenant: LendingTestTenant,
  loanId: string,
  timeoutMs = 30_000,
) =>
  eventually(
    async () => {
      const loan = await loanOf(platform, tenant, loanId);
      return loan.status === 'Active' ? loan : undefined;
    },
    timeoutMs,
    'the loan to be Active',
  );

export interface GatewayNotification {
  status: string;
  delivery: string;
  attemptCount: number;
  attempts: { attempt: number; httpStatus: number | null; reply: string | null }[];
}

/** GET /collect/notifications as the merchant: the gateway's record of an invoice's notifications. */
export async function gatewayNotifications(
  platform: TestPlatform,
  merchant: CollectMerchant,
  invoice: string,
): Promise<GatewayNotification[]> {
  const encoded = Buffer.from(`MIN=${merchant.min}\nINVOICE=${invoice}`).toString('base64');
  const checksum = createHmac('sha1', merchant.secret).update(encoded).digest('hex');
  const response = await fetch(
    `${platform.collectUrl}/notifications?${new URLSearchParams({ ENCODED: encoded, CHECKSUM: checksum })}`,
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { notifications: GatewayNotification[] }).notifications;
}

/** A duplicate notification would arrive within this (batch window 100 ms, retries 200 ms). */
export const QUIET_MS = 1_500;

/** Waits until the gateway has delivered its notification of the invoice, then a moment for duplicates. */
export async function notified(
  platform: TestPlatform,
  merchant: CollectMerchant,
  invoice: string,
  status: 'PAID' | 'EXPIRED' | 'REVERSED',
) {
  const [notification] = await eventually(
    async () => {
      const found = await gatewayNotifications(platform, merchant, invoice);
      return found.some((candidate) => candidate.status === status && candidate.delivery !== 'pending')
        ? found
        : undefined;
    },
    30_000,
    `the ${status} notification of ${invoice}`,
  );
  await pause(QUIET_MS);
  return notification!;
}
