import { asc, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { collectLedgerEntries, collectLedgerTransactions } from '../../db/schema/collect-ledger.ts';
import { collectNotifications } from '../../db/schema/collect-notifications.ts';
import { collectStatementCredits } from '../../db/schema/collect-statements.ts';
import { eventually } from '../support/platform.ts';
import { camt053, camt054 } from './camt-builder.ts';
import {
  credit,
  history,
  imported,
  notificationsOf,
  notifiedOnce,
  obligation,
  platform,
  register,
  reviewOf,
  statementId,
  upload,
  useStatementPlatform,
} from './statements-support.ts';

/**
 * Bank statements' reversals (decision 0063): a reversal of a credit that paid an obligation takes the
 * payment back through the obligation's workflow; any other waits in review.
 */

useStatementPlatform();

describe('a reversal un-pays what it reversed (decision 0063)', () => {
  /** The obligation's ledger transactions (key and the merchant's side), in order. */
  const ledgerOf = async (idn: string) =>
    platform.db
      .select({
        key: collectLedgerTransactions.key,
        kind: collectLedgerTransactions.kind,
        merchant: sql<string>`sum(${collectLedgerEntries.amountMinor}) filter (where ${collectLedgerEntries.account} like 'merchant:%')`,
      })
      .from(collectLedgerTransactions)
      .innerJoin(collectLedgerEntries, eq(collectLedgerEntries.transactionId, collectLedgerTransactions.id))
      .where(eq(collectLedgerTransactions.idn, idn))
      .groupBy(collectLedgerTransactions.id, collectLedgerTransactions.key, collectLedgerTransactions.kind)
      .orderBy(asc(collectLedgerTransactions.id));

  it('a statement credit pays a bill; the bank’s reversal of it makes the bill unpaid again through its workflow, once', async () => {
    const bill = await register('33.40');
    const paying = credit('PAY', '33.40', `IDN ${bill.idn}`);
    const first = await upload(camt053({ id: statementId('DAY1'), entries: [paying] }));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(await imported(first.body.statements[0]?.statementId ?? '')).toMatchObject({ settled: 1 });
    await notifiedOnce(bill);
    const paidRun = await platform.client.workflow.getHandle(`collect-${bill.idn}`).describe();

    // The next day the bank takes the credit back: a DBIT entry with RvslInd and the credit's references.
    const reversalDay = camt053({
      id: statementId('DAY2'),
      entries: [{ ...paying, credit: false, reversal: true, ustrd: ['Reversal of an erroneous booking'] }],
    });
    const second = await upload(reversalDay);
    expect(second.status, JSON.stringify(second.body)).toBe(202);
    const secondId = second.body.statements[0]?.statementId ?? '';
    expect(await imported(secondId)).toMatchObject({ credits: 1, settled: 0, review: 0, reversed: 1 });
    expect(await reviewOf(secondId)).toEqual([]);

    // The workflow: a new run of collect-<idn> took the payment back and waits for a payment again.
    const handle = platform.client.workflow.getHandle(`collect-${bill.idn}`);
    const reopened = await eventually(async () => {
      const described = await handle.describe();
      return described.runId !== paidRun.runId ? described : undefined;
    });
    expect(reopened.status.name).toBe('RUNNING');
    // The read model: unpaid, its events PAID then PENDING again (written by the new run's first step,
    // which may still be running when the run is there).
    const row = await eventually(async () => {
      const current = await obligation(bill.idn);
      return current?.status === 'PENDING' ? current : undefined;
    });
    expect(row).toMatchObject({ status: 'PENDING', paidAmountMinor: null, payTime: null, settledAt: null });
    expect(await history(bill.idn)).toEqual(['PAID', 'PENDING']);
    // The ledger: the settlement, then the same negated.
    expect(await ledgerOf(bill.idn)).toEqual([
      { key: `settlement:${bill.idn}`, kind: 'settlement', merchant: '-3340' },
      { key: `settlement-reversed:${bill.idn}`, kind: 'settlement_reversed', merchant: '3340' },
    ]);
    // The merchant is told: PAID, then REVERSED.
    await eventually(async () => (notificationsOf(bill.invoice).length === 2 ? true : undefined));
    expect(notificationsOf(bill.invoice).map((line) => line.status)).toEqual(['PAID', 'REVERSED']);
    // The REVERSED line names the payment taken back by its PAY_TIME, alone (decision 0063, amended).
    const [paidLine, reversedLine] = notificationsOf(bill.invoice);
    expect(paidLine?.payTime).toMatch(/^\d{14}$/);
    expect(reversedLine).toMatchObject({ status: 'REVERSED', payTime: paidLine?.payTime });
    expect(reversedLine?.stan).toBeUndefined();
    expect(reversedLine?.bcode).toBeUndefined();
    // Through the workflow: its first step took the payment back, its second told the merchant.
    const events = (await handle.fetchHistory()).events ?? [];
    const activities = events
      .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(activities.slice(0, 2)).toEqual(['recordObligationReversal', 'queueMerchantNotification']);
    // Both credits are out of the way: the reversed one and the reversal.
    const rows = await platform.db
      .select({ entryRef: collectStatementCredits.entryRef, state: collectStatementCredits.state })
      .from(collectStatementCredits)
      .where(eq(collectStatementCredits.obligationIdn, bill.idn))
      .orderBy(asc(collectStatementCredits.id));
    expect(rows.map((credit) => credit.state)).toEqual(['reversed', 'reversed']);

    // The same reversal statement again changes nothing; so does the same reversal in another statement.
    const again = await upload(reversalDay);
    expect(again.body.statements[0]).toMatchObject({ duplicate: true });
    const elsewhere = await upload(
      camt054({ id: statementId('NTF'), entries: [{ ...paying, credit: false, reversal: true }] }),
    );
    expect(elsewhere.body.statements[0]).toMatchObject({ alreadyImported: 1 });
    await imported(elsewhere.body.statements[0]?.statementId ?? '');
    expect((await handle.describe()).runId).toBe(reopened.runId);
    expect(await history(bill.idn)).toEqual(['PAID', 'PENDING']);
    expect((await ledgerOf(bill.idn)).length).toBe(2);

    // Paid again by a new credit: PAID a second time, notified as such, its own settlement.
    const repaid = await upload(
      camt053({ id: statementId('DAY3'), entries: [credit('PAY2', '33.40', `IDN ${bill.idn}`)] }),
    );
    expect(await imported(repaid.body.statements[0]?.statementId ?? '')).toMatchObject({ settled: 1 });
    expect(await handle.result()).toBe('PAID');
    expect((await ledgerOf(bill.idn)).map((line) => line.key)).toEqual([
      `settlement:${bill.idn}`,
      `settlement-reversed:${bill.idn}`,
      `settlement:${bill.idn}#2`,
    ]);
    await eventually(async () => (notificationsOf(bill.invoice).length === 3 ? true : undefined));
    expect(notificationsOf(bill.invoice).map((line) => line.status)).toEqual(['PAID', 'REVERSED', 'PAID']);
    const notified = await platform.db
      .select({
        status: collectNotifications.status,
        round: collectNotifications.round,
        payTime: collectNotifications.payTime,
      })
      .from(collectNotifications)
      .where(eq(collectNotifications.invoice, bill.invoice))
      .orderBy(asc(collectNotifications.createdAt));
    const secondPaid = notificationsOf(bill.invoice)[2];
    expect(notified).toEqual([
      { status: 'PAID', round: 0, payTime: paidLine?.payTime },
      { status: 'REVERSED', round: 0, payTime: paidLine?.payTime },
      { status: 'PAID', round: 1, payTime: secondPaid?.payTime },
    ]);
  });

  it('a reversal with no matching credit, or of a payment made otherwise, waits in review with its reason', async () => {
    const byDesk = await register('12.00', '/office/reg_bill.cgi');
    const nothing = credit('GHOST', '19.99', 'never credited');
    const paidOtherwise = credit('SETTLED-ELSEWHERE', '12.00', `IDN ${byDesk.idn}`);
    // The credit arrives while the bill is open, but is refused because it was paid at the desk first.
    const pay = await fetch(`${platform.collectUrl}/office/pay_bill.cgi?ACTION=PAY&IDN=${byDesk.idn}`);
    expect(pay.status, await pay.text()).toBe(200);
    await eventually(async () => ((await obligation(byDesk.idn))?.status === 'PAID' ? true : undefined));
    const day1 = await upload(camt053({ id: statementId('R1'), entries: [paidOtherwise] }));
    const day1Id = day1.body.statements[0]?.statementId ?? '';
    expect(await imported(day1Id)).toMatchObject({ review: 1 });
    const day2 = await upload(
      camt053({
        id: statementId('R2'),
        entries: [
          { ...nothing, credit: false, reversal: true },
          { ...paidOtherwise, credit: false, reversal: true },
        ],
      }),
    );
    const day2Id = day2.body.statements[0]?.statementId ?? '';
    expect(await imported(day2Id)).toMatchObject({ review: 2, reversed: 0 });
    const review = await reviewOf(day2Id);
    expect(review.map((item) => item.reason)).toEqual(['credit_reversed', 'credit_reversed']);
    expect(review[0]?.reasonDetail).toMatch(/no earlier imported credit/);
    expect(review[1]?.reasonDetail).toMatch(/which settled nothing/);
    expect((await obligation(byDesk.idn))?.status).toBe('PAID');
  });
});
