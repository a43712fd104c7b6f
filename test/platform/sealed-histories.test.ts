import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { platformTaskQueues } from '../../domain/task-queues.ts';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { newOperator, openDesk } from '../collect/desk-client.ts';
import { activeLoan, approvedLoan, issued, makeMerchant } from '../lending/disbursement-support.ts';
import { signingCodesSent } from '../lending/documents-support.ts';
import { createCreditProduct } from '../lending/products-support.ts';
import { completeDetails, createLendingTenant, type LendingTestTenant } from '../lending/support.ts';
import { bankHash, startConsent } from '../openbanking/consent-helpers.ts';
import {
  confirm,
  createIbanPayment,
  type PayingCustomer,
  payingCustomer,
  paymentOnceSettled,
  type Receiver,
  smsCodeFor,
} from '../openbanking/payment-helpers.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * What anyone who reaches the Temporal frontend or Web UI reads (issue 22): the raw histories, through the
 * engine's own API with no codec. After a loan journey (registration with personal data, signing codes by
 * SMS, a cash payout collected at a desk), a consent and a payment with the bank's SMS code, no history of
 * the platform's task queues holds any of the personal data, codes, states, tokens or secrets involved; the
 * workflow types (which are not secret) are found, so the search does find what is there.
 */

const ADMIN_TOKEN = 'admin-token-for-the-sealed-histories-test-0123';
const PERSON = {
  firstName: 'Wilhelmina',
  lastName: 'Quillfeather',
  birthDate: '1987-09-23',
  phone: '+12025550187',
  ssn: '987-65-4329',
  line1: '77 Larkspur Crescent',
} as const;
const { line1: _line1, ...named } = PERSON;
const CUSTOMER = completeDetails({
  ...named,
  address: { line1: PERSON.line1, city: 'Springfield', state: 'CA', postalCode: '90210', country: 'US' },
});

let platform: TestPlatform;
let tenant: LendingTestTenant;
let hooks: Receiver;
let connection: Connection;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  hooks = await startReceiver();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await connection?.close();
  await hooks?.stop();
  await platform?.stop();
});

/** Every history of the platform's task queues, each as the bytes the engine keeps (no codec). */
async function rawHistories(): Promise<
  { workflowId: string; workflowType: string; bytes: Buffer; searchAttributes: Buffer }[]
> {
  const namespace = platform.config.TEMPORAL_NAMESPACE;
  const queues = Object.values(platformTaskQueues(platform.config.TEMPORAL_TASK_QUEUE));
  const query = queues.map((queue) => `TaskQueue = '${queue}'`).join(' OR ');
  const executions: temporal.api.workflow.v1.IWorkflowExecutionInfo[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.listWorkflowExecutions({ namespace, query, nextPageToken });
    executions.push(...page.executions);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  const histories = [];
  for (const execution of executions) {
    const events: temporal.api.history.v1.IHistoryEvent[] = [];
    let token: Uint8Array | undefined;
    do {
      const page = await connection.workflowService.getWorkflowExecutionHistory({
        namespace,
        execution: execution.execution,
        nextPageToken: token,
      });
      events.push(...(page.history?.events ?? []));
      token = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (token);
    histories.push({
      workflowId: execution.execution?.workflowId ?? '?',
      workflowType: execution.type?.name ?? '?',
      bytes: Buffer.from(temporal.api.history.v1.History.encode({ events }).finish()),
      searchAttributes: Buffer.from(
        temporal.api.common.v1.SearchAttributes.encode(execution.searchAttributes ?? {}).finish(),
      ),
    });
  }
  return histories;
}

describe('the engine holds no personal data, code, token or secret in clear', () => {
  let loanId: string;
  let signingCodes: string[];
  let payer: PayingCustomer;
  let paymentSmsCode: string;
  let paymentState: string;
  let consentState: string;
  let merchantSecret: string;

  it('runs a loan journey with a cash payout, a consent and a payment with an SMS code', async () => {
    const merchant = await makeMerchant(platform, tenant, ADMIN_TOKEN);
    merchantSecret = merchant.secret;
    loanId = await approvedLoan(platform, tenant, CUSTOMER);
    signingCodes = platform.sandbox.smpp.submitted
      .filter((sms) => sms.text.includes(`of loan ${loanId}`))
      .map((sms) => /^(\d{6}) is your code/.exec(sms.text)?.[1] ?? '');
    expect(signingCodes.length).toBeGreaterThanOrEqual(2);
    expect(signingCodesSent(platform, loanId, 'Loan agreement').length).toBeGreaterThan(0);
    const payout = await issued(platform, tenant, loanId);
    const desk = await openDesk(platform, await newOperator(platform));
    const paid = await desk.payOut(payout.idn, {
      recipientName: `${PERSON.firstName} ${PERSON.lastName}`,
      recipientId: PERSON.ssn.replaceAll('-', ''),
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect((await activeLoan(platform, tenant, loanId)).status).toBe('Active');

    payer = await payingCustomer(platform, hooks);
    const consents = await payer.call<{ tokens: { consentId: string }[] }>('GET', '/api/8/tokens', {
      headers: payer.headers,
    });
    expect(consents.body.tokens.length).toBeGreaterThan(0);
    consentState = (await startConsent(payer, { bankHash: bankHash('bank-a') })).state;
    const created = await createIbanPayment(payer);
    paymentState = created.callbackState;
    const sentAfter = Date.now();
    const confirmed = await confirm(payer, created.code, { scaMethod: 'EMBEDDED_SMS_OTP' }, 'PUT');
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA' });
    paymentSmsCode = await smsCodeFor(platform, 'alice', sentAfter);
    const verified = await payer.call('PUT', '/api/8/payment/verify-sms', {
      headers: { ...payer.headers, 'user-agent': 'Sealed histories test' },
      body: { code: created.code, smsCode: paymentSmsCode },
    });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect((await paymentOnceSettled(payer, created.code)).status).toBe('CONFIRMED');
  }, 120_000);

  it('finds none of them in any raw history or search attribute (and finds what is in clear)', async () => {
    const secrets: Record<string, string> = {
      'national id': PERSON.ssn,
      'national id (digits)': PERSON.ssn.replaceAll('-', ''),
      'first name': PERSON.firstName,
      'last name': PERSON.lastName,
      'birth date': PERSON.birthDate,
      phone: PERSON.phone,
      'phone (digits)': PERSON.phone.replace('+', ''),
      'street address': PERSON.line1,
      'e-mail': CUSTOMER.email ?? '',
      'debtor IBAN': payer.accounts[0]!.iban,
      'creditor name': 'Sofia Water',
      "the bank's SMS code": paymentSmsCode,
      'payment callback state': paymentState,
      'open-banking user hash': payer.headers['x-user-hash'],
      'agent hash': payer.agentHash,
      'messaging access token': platform.token,
      'merchant secret': merchantSecret,
      'lending front-office key': tenant.keys.frontOffice,
      'admin token': ADMIN_TOKEN,
      ...Object.fromEntries(signingCodes.map((code, index) => [`signing code ${index + 1}`, code])),
      'consent state': consentState,
    };
    const histories = await eventually(
      async () => {
        const found = await rawHistories();
        // Visibility is eventually consistent: wait until the loan and the payment are listed.
        const ids = found.map((history) => history.workflowId).join(' ');
        return ids.includes(loanId) && found.length >= 6 ? found : undefined;
      },
      30_000,
      'the workflows to be listed',
    );
    const leaks: string[] = [];
    for (const history of histories) {
      for (const [what, value] of Object.entries(secrets)) {
        if (value.length < 4) continue; // Too short to tell from chance bytes of sealed data.
        if (history.bytes.includes(value) || history.searchAttributes.includes(value))
          leaks.push(`${what} in ${history.workflowId}`);
      }
    }
    expect(leaks).toEqual([]);
    // The search finds what is in clear: each history names its workflow type.
    for (const history of histories) expect(history.bytes.includes(history.workflowType)).toBe(true);

    // Sealed histories replay against today's workflow code with the platform's data converter.
    const replayed = Worker.runReplayHistories(
      {
        workflowBundle: { codePath: inject('workflowBundlePath') },
        dataConverter: platformDataConverter(platform.config),
      },
      histories.map((history) => ({
        workflowId: history.workflowId,
        history: temporal.api.history.v1.History.decode(history.bytes),
      })),
    );
    const failures: string[] = [];
    for await (const result of replayed)
      if (result.error) failures.push(`${result.workflowId}: ${result.error}`);
    expect(failures).toEqual([]);
  }, 120_000);
});
