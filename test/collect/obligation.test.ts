import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCollectClient, parseLines } from '../../clients/src/collect.ts';
import { collectCardPages } from '../../db/schema/collect-card-page.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { holdWithCard } from './card-client.ts';
import { expTimeIn, getText, newInvoice, postForm, signedPacket } from './epay-client.ts';
import { obligationRow, statusHistory } from './read-model.ts';

/** Expiries without EXP_TIME are shortened to 3 s so the timers can be watched. */
let platform: TestPlatform;
let merchant: { min: string; secret: string };

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { COLLECT_OBLIGATION_EXPIRY: '3s', COLLECT_PAYOUT_EXPIRY: '3s', COLLECT_PREAUTH_EXPIRY: '3s' },
  });
  merchant = await platform.createMerchant({ name: 'Lender' });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const url = (path: string) => `${platform.collectUrl}${path}`;
const call = (path: string, fields: Record<string, string>) =>
  getText(
    url(path),
    signedPacket({ MIN: merchant.min, INVOICE: newInvoice(), ENCODING: 'utf-8', ...fields }, merchant.secret),
  );
const readRow = (idn: string) => obligationRow(platform.db, idn);
const statusBecomes = (idn: string, status: string, timeoutMs = 15_000) =>
  eventually(
    async () => {
      const row = await readRow(idn);
      return row?.status === status ? row : undefined;
    },
    timeoutMs,
    `${idn} ${status}`,
  );
/** The workflow closes once the merchant notification is handed over. */
const completed = (workflowId: string) =>
  eventually(async () => {
    const workflow = await platform.client.workflow.getHandle(workflowId).describe();
    return workflow.status.name === 'COMPLETED' ? workflow : undefined;
  });
const history = (idn: string) => statusHistory(platform.db, idn);

describe('office obligation', () => {
  it('register → 10-digit code → demo payment → PAID, once', async () => {
    // The merchant's typed client (clients/, decision 0058): packets signed with its secret.
    const collect = createCollectClient(platform.apiUrl, merchant);
    const registered = await collect.GET('/office/reg_bill.cgi', {
      params: {
        query: collect.packet({
          INVOICE: newInvoice(),
          ENCODING: 'utf-8',
          AMOUNT: '22.80',
          EXP_TIME: expTimeIn(86_400_000),
        }),
      },
      parseAs: 'text',
    });
    const idn = parseLines(registered.data ?? '').IDN ?? '';
    expect(idn).toMatch(/^\d{10}$/);

    const pay = () =>
      collect.GET('/office/pay_bill.cgi', {
        params: { query: { ACTION: 'PAY', IDN: idn } },
        parseAs: 'text',
      });
    const paidAnswer = await pay();
    expect(paidAnswer.response.status, paidAnswer.error).toBe(200);
    const paid = { fields: parseLines(paidAnswer.data ?? '') };
    expect(paid.fields).toMatchObject({ STATUS: 'PAID', IDN: idn, AMOUNT: '22.80' });
    expect(paid.fields.PAY_TIME).toMatch(/^\d{14}$/);
    expect(paid.fields.STAN).toMatch(/^\d{6}$/);

    const row = await readRow(idn);
    expect(row).toMatchObject({
      status: 'PAID',
      paidAmountMinor: 2280,
      payTime: paid.fields.PAY_TIME,
      stan: paid.fields.STAN,
    });
    expect(await history(idn)).toEqual(['PAID']);

    const again = await pay();
    expect(again.response.status).toBe(409);
    expect(parseLines(again.error ?? '').ERR).toBe('ALREADY_PAID');

    const workflow = await completed(`collect-${idn}`);
    expect(workflow.typedSearchAttributes.get({ name: 'BusinessStatus', type: 'KEYWORD' } as never)).toBe(
      'PAID',
    );
  });

  it('expires at its expiry; a late payment is refused with EXPIRED', async () => {
    const idn = (await call('/office/reg_bill.cgi', { AMOUNT: '10.00' })).fields.IDN ?? '';
    await statusBecomes(idn, 'EXPIRED');
    const late = await getText(url('/office/pay_bill.cgi'), { ACTION: 'PAY', IDN: idn });
    expect(late.status).toBe(409);
    expect(late.fields.ERR).toBe('EXPIRED');
    expect((await readRow(idn))?.status).toBe('EXPIRED');
    expect(await history(idn)).toEqual(['EXPIRED']);
  });
});

describe('cash payout', () => {
  const order = (fields: Record<string, string> = {}) =>
    call('/office/send.cgi', {
      AMOUNT: '150.00',
      RCPT_NAME: 'Ivan Petrov',
      RCPT_ID: '8001011234',
      ...fields,
    });

  it('is PAID when collected, with STAN and BCODE 000000', async () => {
    const sysCode = (await order({ EXP_TIME: expTimeIn(86_400_000) })).fields.SYS_CODE ?? '';
    const collected = await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: sysCode });
    expect(collected.status, collected.body).toBe(200);
    expect(collected.fields).toMatchObject({
      STATUS: 'PAID',
      SYS_CODE: sysCode,
      AMOUNT: '150.00',
      RCPT_NAME: 'Ivan Petrov',
      STAN: '000000',
      BCODE: '000000',
    });
    expect(await readRow(sysCode)).toMatchObject({ status: 'PAID', stan: '000000', bcode: '000000' });
    const twice = await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: sysCode });
    expect(twice.fields.ERR).toBe('ALREADY_PAID');
    await completed(`payout-${sysCode}`);
  });

  it('is EXPIRED when not collected in time, and cannot be collected afterwards', async () => {
    const sysCode = (await order()).fields.SYS_CODE ?? '';
    expect((await readRow(sysCode))?.status).toBe('PENDING');
    await statusBecomes(sysCode, 'EXPIRED');
    const late = await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: sysCode });
    expect(late.status).toBe(409);
    expect(late.fields.ERR).toBe('EXPIRED');
  });

  it('waits for a moved expiry (GET /v3main re-arms the timer)', async () => {
    const sysCode = (await order()).fields.SYS_CODE ?? '';
    const moved = await getText(
      url('/v3main'),
      signedPacket({ MIN: merchant.min, IDN: sysCode, EXP_TIME: expTimeIn(86_400_000) }, merchant.secret),
    );
    expect(moved.status, moved.body).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 4_000)); // past the original 3 s expiry
    expect((await readRow(sysCode))?.status).toBe('PENDING');
    const collected = await getText(url('/office/pay_money_send.cgi'), { SYS_CODE: sysCode });
    expect(collected.fields.STATUS).toBe('PAID');
  });
});

describe('pre-authorisation', () => {
  const v3 = (fields: Record<string, string>) =>
    postForm(url('/v3main/'), signedPacket(fields, merchant.secret));

  it('refuses a finalize over the held amount and keeps the hold; an untouched hold expires', async () => {
    const packet = { MIN: merchant.min, INVOICE: newInvoice(), AMOUNT: '50.00', PHASE: 'REGISTER' };
    const held = await v3(packet);
    const idn = held.fields.IDN ?? '';
    // The customer's card authorises the hold on the card page (decision 0032).
    expect((await holdWithCard(url(''), packet, merchant.secret)).status).toBe(200);
    const over = await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '50.01' });
    expect(over.status).toBe(422);
    expect(over.fields).toMatchObject({ ERR: 'AMOUNT_EXCEEDS_HOLD', FIELD: 'AMOUNT' });
    expect((await readRow(idn))?.status).toBe('HELD');
    await statusBecomes(idn, 'EXPIRED');
    // The expired hold is released at the acquirer.
    const [page] = await platform.db
      .select({ authorisationId: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, idn));
    await eventually(
      async () =>
        platform.sandbox.acquirer.authorisation(page?.authorisationId ?? '')?.status === 'voided'
          ? true
          : undefined,
      15_000,
      'the hold voided',
    );
    const late = await v3({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '50.00' });
    expect(late.status).toBe(409);
    expect(late.fields.ERR).toBe('EXPIRED');
  });
});
