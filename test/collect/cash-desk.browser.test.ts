import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectDeskOperations } from '../../db/schema/collect-desk.ts';
import { launchChromium } from '../support/browser.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type Merchant, newOperator, notificationsAbout, orderPayout, RECIPIENT } from './desk-client.ts';

/**
 * The hosted cash-desk page in a real headless Chromium: a person at an office counter logs in, looks
 * up the payout a merchant registered (office/send.cgi through its ePay client), checks the
 * recipient's document and pays out; or is refused when the identity does not match.
 */
let platform: TestPlatform;
let browser: Browser;
let merchant: Merchant;
let operator: Awaited<ReturnType<typeof newOperator>>;
let context: BrowserContext;

beforeAll(async () => {
  platform = await startTestPlatform();
  merchant = await platform.createSandboxMerchant({ name: 'Lender' });
  operator = await newOperator(platform);
  browser = await launchChromium();
});
afterEach(async () => {
  await context?.close();
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

const readRow = async (idn: string) =>
  (await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn)))[0];

/** A fresh browser, logged in at the desk page. */
async function logIn(): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${platform.collectUrl}/desk`);
  await page.getByLabel('Login').fill(operator.login);
  await page.getByLabel('Password').fill(operator.password);
  await Promise.all([
    page.waitForURL(`${platform.collectUrl}/desk`),
    page.getByRole('button', { name: 'Log in' }).click(),
  ]);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
    `Cash desk ${operator.officeId}`,
  );
  const [cookie] = await context.cookies();
  expect(cookie).toMatchObject({
    name: 'desk_session',
    httpOnly: true,
    sameSite: 'Strict',
    path: '/collect/desk',
  });
  return page;
}

async function lookUp(page: Page, idn: string) {
  await page.getByLabel('IDN').fill(idn);
  await page.getByRole('button', { name: 'Look up' }).click();
  await page.locator('[data-field="idn"]').waitFor();
}

async function payOut(page: Page, identity: { recipientId: string; recipientName: string }) {
  await page.getByLabel('Personal or document number').fill(identity.recipientId);
  await page.getByLabel('Full name').fill(identity.recipientName);
  await page.getByRole('button', { name: 'Pay out 150.00 BGN' }).click();
}

describe('the cash-desk page', () => {
  it('a payout paid out with the right identity: PAID, one merchant notification, a receipt', async () => {
    const { idn, invoice } = await orderPayout(platform, merchant);
    const page = await logIn();
    await lookUp(page, idn);
    await expect(page.locator('[data-field="status"]').textContent()).resolves.toBe('PENDING');
    await expect(page.locator('[data-field="amount"]').textContent()).resolves.toBe('150.00 BGN');
    await expect(page.content()).resolves.not.toContain(RECIPIENT.recipientId);

    await payOut(page, { recipientId: RECIPIENT.recipientId, recipientName: 'ivan petrov' });
    await page.locator('[data-field="receipt"]').waitFor();
    const receipt = (await page.locator('[data-field="receipt"]').textContent()) ?? '';
    expect(receipt).toMatch(new RegExp(`^${operator.officeId}-\\d{10}$`));
    await expect(page.locator('[data-field="status"]').textContent()).resolves.toBe('PAID');
    expect(await readRow(idn)).toMatchObject({ status: 'PAID', stan: '000000', bcode: '000000' });

    // Reloading the receipt page re-posts the same form (same request id): the same receipt, once.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.reload();
    await page.locator('[data-field="receipt"]').waitFor();
    await expect(page.locator('[data-field="receipt"]').textContent()).resolves.toBe(receipt);
    const operations = await platform.db
      .select()
      .from(collectDeskOperations)
      .where(eq(collectDeskOperations.idn, idn));
    expect(operations).toMatchObject([{ state: 'completed', operatorId: operator.id, kind: 'payout' }]);

    await eventually(
      async () => (notificationsAbout(platform, merchant, invoice).length > 0 ? true : undefined),
      20_000,
      'the notification',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // a duplicate would arrive within this
    const posts = notificationsAbout(platform, merchant, invoice);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ checksumValid: true, signatureValid: true });
    expect(posts[0]!.lines.find((line) => line.invoice === invoice)).toMatchObject({
      status: 'PAID',
      stan: '000000',
      bcode: '000000',
    });

    // Looked up again: nothing to do.
    await lookUp(page, idn);
    await expect(page.locator('[data-field="status"]').textContent()).resolves.toBe('PAID');
    await expect(page.getByRole('button', { name: /Pay out/ }).count()).resolves.toBe(0);
  });

  it('refused with a wrong identity: nothing paid, the registered values not shown', async () => {
    const { idn, invoice } = await orderPayout(platform, merchant);
    const page = await logIn();
    await lookUp(page, idn);
    await payOut(page, { recipientId: '8001011239', recipientName: 'Ivan Petrov' });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.getAttribute('data-code')).resolves.toBe('identity_mismatch');
    await expect(page.content()).resolves.not.toContain(RECIPIENT.recipientId);
    expect((await readRow(idn))?.status).toBe('PENDING');
    expect(notificationsAbout(platform, merchant, invoice)).toHaveLength(0);
  });

  it('a form posted without the session’s CSRF token, or from another site, is refused', async () => {
    const { idn } = await orderPayout(platform, merchant);
    const page = await logIn();
    const status = await page.evaluate(
      async ({ url, idn }) =>
        (
          await fetch(url, {
            method: 'POST',
            body: new URLSearchParams({
              csrf: 'forged',
              requestId: 'request-0001',
              idn,
              recipientId: '8001011234',
              recipientName: 'Ivan Petrov',
            }),
          })
        ).status,
      { url: `${platform.collectUrl}/desk/payout`, idn },
    );
    expect(status).toBe(403);
    const crossSite = await fetch(`${platform.collectUrl}/desk/payout`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ idn }),
    });
    expect(crossSite.status).toBe(403);
    const noSession = await fetch(`${platform.collectUrl}/desk/payout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ idn }),
    });
    expect(noSession.status).toBe(401);
    expect((await readRow(idn))?.status).toBe('PENDING');
  });
});
