import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPermanentSqlState, permanentFailureOf } from '../../activities/shared/permanent-failures.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { obligationWorkflowId, payObligationUpdate } from '../../domain/collect/processes.ts';
import { addCollateralUpdate, loanWorkflowId } from '../../domain/lending/loan-process.ts';
import { deliveryReceiptsSignal } from '../../domain/messaging/processes.ts';
import { paymentConfirmUpdate, paymentWorkflowId } from '../../domain/openbanking/processes.ts';
import { DATA_REFUSED } from '../../domain/permanent-failures.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from '../collect/epay-client.ts';
import { createCreditProduct } from '../lending/products-support.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lendingCall,
  registerCustomer,
} from '../lending/support.ts';
import { createIbanPayment, payingCustomer, paymentStatus } from '../openbanking/payment-helpers.ts';
import { handedOverMessage, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * A process never jams (issue 20, item 2): an activity's write the database refuses for good (SQLSTATE
 * classes 22 and 23) fails non-retryable (`DataRefused`, the worker's activity interceptor), the process
 * records the refusal with its reason, the caller is told, and the process takes its next operation.
 * Each long process kind gets such a failure injected past the API's input guard (an Update or Signal
 * sent to its workflow directly, carrying text PostgreSQL refuses).
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  // The sandbox SMSC's own receipt comes late: the receipt the SMS test signals is the first.
  platform = await startTestPlatform({ receiptDelayMs: 60_000 });
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId, { name: 'Car loan', secured: true });
});
afterAll(async () => {
  await platform?.stop();
});

describe('classifying database errors', () => {
  it('classes 22 and 23 are permanent, except the unique and exclusion violations a race can cause', () => {
    for (const code of ['22P02', '22003', '22021', '22001', '23502', '23503', '23514'])
      expect({ code, permanent: isPermanentSqlState(code) }).toEqual({ code, permanent: true });
    for (const code of ['23505', '23P01', '40001', '08006', '57P01', '53300'])
      expect({ code, permanent: isPermanentSqlState(code) }).toEqual({ code, permanent: false });
  });

  it('finds the SQLSTATE in a wrapper’s cause and names no value', () => {
    const postgres = Object.assign(new Error('invalid input syntax for type json: "secret"'), {
      code: '22P02',
      column_name: 'collaterals',
      table_name: 'lending_loans',
    });
    const drizzle = new Error('Failed query: insert ... params: secret', { cause: postgres });
    const failure = permanentFailureOf(drizzle);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect({ type: failure?.type, nonRetryable: failure?.nonRetryable, message: failure?.message }).toEqual({
      type: DATA_REFUSED,
      nonRetryable: true,
      message:
        'the database refused the data: SQLSTATE 22P02 invalid_text_representation (table "lending_loans", column "collaterals")',
    });
    expect(permanentFailureOf(Object.assign(new Error('x'), { code: '23505' }))).toBeUndefined();
    expect(permanentFailureOf(new Error('connection closed'))).toBeUndefined();
  });
});

describe('a loan', () => {
  it('undoes a change the database refuses, says why, and takes its next operation', async () => {
    const customer = await registerCustomer(platform, tenant, completeDetails());
    const asCustomer = (method: string, path: string, body?: unknown) =>
      lendingCall<{ collaterals: { description: string }[]; status: string }>(platform, method, path, {
        key: tenant.keys.frontOffice,
        token: customer.token,
        ...(body ? { body } : {}),
      });
    const created = await asCustomer('POST', '/Customer/Loans/Create', {
      productName: 'Car loan',
      amount: '5000',
      term: 12,
    });
    expect(created.status).toBe(201);
    const loanId = String((created.body as unknown as { loanId: string }).loanId);
    const loan = platform.client.workflow.getHandle(loanWorkflowId(tenant.tenantId, loanId));

    // Past the input guard: a lone surrogate, which jsonb refuses, straight to the workflow.
    const refused = await loan
      .executeUpdate(addCollateralUpdate, {
        args: [
          {
            by: { role: 'customer', id: customer.customerId },
            collateral: { kind: 'vehicle', description: 'x\ud800y', value: '9500.00' },
          },
        ],
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (refused as WorkflowUpdateFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('data_refused');
    expect(cause.message).toMatch(/^the database refused the data: SQLSTATE 22/);

    // Recorded on the process with its reason.
    const { memo } = await loan.describe();
    expect(memo?.lastRefusal).toMatchObject({ reason: cause.message });

    // The loan is not jammed: its next operation is answered, without the refused change.
    const next = await asCustomer('POST', `/Customer/Loans/${loanId}/Collaterals`, {
      kind: 'vehicle',
      description: 'Toyota Corolla 2019',
      value: '9500.00',
    });
    expect(next.status).toBe(200);
    expect(next.body.collaterals.map((collateral) => collateral.description)).toEqual([
      'Toyota Corolla 2019',
    ]);
    const read = await asCustomer('GET', `/Customer/Loans/${loanId}`);
    expect(read.status).toBe(200);
  });
});

describe('an SMS', () => {
  it('records its outcome when the database refuses the carrier’s words, instead of retrying for ever', async () => {
    const api = messagingClient(() => platform);
    const sent = await api('POST', '/sms', {
      body: { to: '+359888123456', from: '+359888000111', message: 'hello' },
    });
    expect(sent.status).toBe(202);
    const messageId = sent.json.id as string;
    const sms = await handedOverMessage(platform, messageId);
    // Once handed to the carrier (whose own receipt is a minute away), a receipt whose error code holds
    // a NUL (text PostgreSQL refuses), straight to the message's batch (decision 0074).
    const carrierMessageId = await eventually(async () => {
      const [row] = await platform.db
        .select({ carrierMessageId: messagingMessages.carrierMessageId })
        .from(messagingMessages)
        .where(eq(messagingMessages.id, messageId));
      return row?.carrierMessageId ?? undefined;
    });
    await sms.signal(deliveryReceiptsSignal, [
      { carrierMessageId, status: 'undeliverable', carrierStatus: 'UNDELIV', errorCode: 'e\u0000' },
    ]);
    expect(await sms.result()).toMatchObject({ undeliverable: 1 });
    const read = await api('GET', `/sms/${messageId}`);
    expect(read.json).toMatchObject({ status: 'undeliverable' });
    expect(read.json.error).toMatch(
      /^the delivery receipt could not be recorded: the database refused the data: SQLSTATE 22/,
    );
  });
});

describe('an obligation', () => {
  it('refuses a payment the database refuses, stays open, and takes the next payment', async () => {
    const merchant = await platform.createMerchant({ name: 'Payout merchant' });
    const registered = await getText(
      `${platform.collectUrl}/office/send.cgi`,
      signedPacket(
        {
          MIN: merchant.min,
          INVOICE: newInvoice(),
          AMOUNT: '5.00',
          RCPT_NAME: 'Ivan Petrov',
          RCPT_ID: '8001011234',
          EXP_TIME: expTimeIn(86_400_000),
        },
        merchant.secret,
      ),
    );
    const idn = registered.fields.IDN ?? '';
    expect(idn, registered.body).toMatch(/^\d{10}$/);
    const obligation = platform.client.workflow.getHandle(obligationWorkflowId('payout_office', idn));
    // Past the cash desk's validation: a receipt number holding a NUL escape (jsonb refuses it).
    const refused = obligation.executeUpdate(payObligationUpdate, {
      args: [
        {
          stan: '1',
          bcode: '1',
          source: { channel: 'cash_desk', officeId: '000001', operatorId: 'op', receipt: 'r\u0000' },
        },
      ],
    });
    await expect(refused).rejects.toMatchObject({
      cause: {
        type: 'BAD_FIELD',
        message: expect.stringMatching(/^the database refused the data: SQLSTATE 22/),
      },
    });
    const [open] = await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
    expect(open?.status).toBe('PENDING');
    expect((await obligation.describe()).memo?.lastRefusal).toMatchObject({ reason: expect.any(String) });

    // The next payment, well-formed, is taken.
    const paid = await obligation.executeUpdate(payObligationUpdate, {
      args: [
        {
          stan: '1',
          bcode: '1',
          source: { channel: 'cash_desk', officeId: '000001', operatorId: 'op', receipt: 'r2' },
        },
      ],
    });
    expect(paid).toMatchObject({ status: 'PAID' });
    const [row] = await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
    expect(row?.status).toBe('PAID');
  });
});

describe('an open-banking payment', () => {
  it('ends FAILED with the reason when the database refuses its confirmation, and tells the caller', async () => {
    const hooks = await startReceiver();
    try {
      const customer = await payingCustomer(platform, hooks);
      const payment = await createIbanPayment(customer);
      const process = platform.client.workflow.getHandle(paymentWorkflowId(payment.code));
      // Past the input guard: a browser name holding a NUL (text PostgreSQL refuses), straight to the
      // workflow. The confirmation is answered, not left waiting or failed.
      await process.executeUpdate(paymentConfirmUpdate, {
        args: [{ approach: 'REDIRECT', psu: { ipAddress: '192.0.2.10', userAgent: 'x\u0000y' } }],
      });
      expect(await process.result()).toBe('FAILED');

      // The caller reads the failed state with its reason; nothing reached the bank.
      const read = await paymentStatus(customer, payment.code);
      expect(read.body).toMatchObject({ state: 'FAILED', status: 'FAILED' });
      expect(read.body.statusReason).toMatch(
        /^the confirmation could not be recorded: the database refused the data: SQLSTATE 22/,
      );
      // Recorded on the process with its reason.
      const { memo } = await process.describe();
      expect(memo?.lastRefusal).toMatchObject({ reason: expect.stringMatching(/^the database refused/) });
    } finally {
      await hooks.stop();
    }
  });
});
