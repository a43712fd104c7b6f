import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, count, eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectCardPages } from '../../db/schema/collect-card-page.ts';
import { SANDBOX_3DS_CODE } from '../../sandbox/collect/acquirer.ts';
import { launchChromium } from '../support/browser.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The hosted card page in a real headless Chromium: a merchant's checkout page posts ENCODED and
 * CHECKSUM to the gateway, the customer types a test card of the sandbox acquirer (approved, declined,
 * or a 3-D Secure check on the acquirer's own page, passed or failed), and lands back on the
 * merchant's URL_OK or URL_CANCEL.
 */
let platform: TestPlatform;
let browser: Browser;
let merchant: { min: string; secret: string };
let shop: Server;
let shopUrl: string;

/** dd.mm.yyyy two days ahead: EXP_TIME of the checkout packets. */
const expTime = () => {
  const at = new Date(Date.now() + 2 * 86_400_000);
  return `${String(at.getUTCDate()).padStart(2, '0')}.${String(at.getUTCMonth() + 1).padStart(2, '0')}.${at.getUTCFullYear()}`;
};
/** MM/YY of a card valid for two more years. */
const cardExpiry = () => {
  const at = new Date();
  return `${String(at.getUTCMonth() + 1).padStart(2, '0')}/${String((at.getUTCFullYear() + 2) % 100).padStart(2, '0')}`;
};

/**
 * The merchant's side, computed here with node:crypto only: the packet and its CHECKSUM. The return
 * URLs go inside the signed packet: form fields of those names are not signed and not used (this
 * merchant registered no return origins; card-page-return-origins.test.ts has one that did).
 */
function signedPacket(
  invoice: string,
  amount: string,
  returnUrls: { URL_OK?: string; URL_CANCEL?: string } = {},
) {
  const text = [
    `MIN=${merchant.min}`,
    `INVOICE=${invoice}`,
    `AMOUNT=${amount}`,
    'CURRENCY=BGN',
    `EXP_TIME=${expTime()}`,
    `DESCR=Order ${invoice}: 2 books`,
    ...Object.entries(returnUrls).map(([key, value]) => `${key}=${value}`),
    'ENCODING=utf-8',
  ].join('\n');
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  return { ENCODED: encoded, CHECKSUM: createHmac('sha1', merchant.secret).update(encoded).digest('hex') };
}

const escapeAttribute = (text: string) => text.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);

beforeAll(async () => {
  platform = await startTestPlatform();
  merchant = await platform.createMerchant({ name: 'Sandbox Bookshop' });
  browser = await launchChromium();
  // The merchant's web shop: a checkout page with a "pay by card" form, and the two return pages.
  shop = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shop');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/checkout') {
      const invoice = url.searchParams.get('invoice') ?? '1';
      const fields = {
        PAGE: 'credit_paydirect',
        ...signedPacket(invoice, url.searchParams.get('amount') ?? '22.80', {
          URL_OK: `${shopUrl}/ok?invoice=${invoice}`,
          URL_CANCEL: `${shopUrl}/cancel?invoice=${invoice}`,
        }),
      };
      const inputs = Object.entries(fields)
        .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeAttribute(value)}">`)
        .join('');
      response.end(
        `<!doctype html><title>Checkout</title><h1>Checkout</h1><form method="post" action="${platform.collectUrl}/">${inputs}<button>Pay by card</button></form>`,
      );
    } else if (url.pathname === '/ok') {
      response.end('<!doctype html><title>Thank you</title><h1>Thank you for your order</h1>');
    } else if (url.pathname === '/cancel') {
      response.end('<!doctype html><title>Cancelled</title><h1>Payment cancelled</h1>');
    } else {
      response.statusCode = 404;
      response.end('not found');
    }
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => shop?.close(resolve));
  await platform?.stop();
});

async function obligationOf(invoice: string) {
  const [row] = await platform.db
    .select()
    .from(collectObligations)
    .where(and(eq(collectObligations.merchantMin, merchant.min), eq(collectObligations.invoice, invoice)));
  return row;
}

/** Opens the merchant's checkout and follows its form to the gateway's card page. */
async function openCardPage(invoice: string, amount = '22.80'): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${shopUrl}/checkout?invoice=${invoice}&amount=${amount}`);
  await Promise.all([
    page.waitForURL(`${platform.collectUrl}/`),
    page.getByRole('button', { name: 'Pay by card' }).click(),
  ]);
  return page;
}

async function fillCard(page: Page, card: { number: string; expiry?: string; cvv?: string }) {
  await page.getByLabel('Card number').fill(card.number);
  await page.getByLabel('Expiry date').fill(card.expiry ?? cardExpiry());
  await page.getByLabel('Security code (CVV)').fill(card.cvv ?? '123');
}

/** The card form posted outside the browser (a replay or a late submission) with the approved test card. */
const postApprovedCard = (token: string) =>
  fetch(`${platform.collectUrl}/card/pay`, {
    method: 'POST',
    body: new URLSearchParams({
      token,
      action: 'pay',
      number: '4000000000000002',
      expiry: cardExpiry(),
      cvv: '123',
    }),
  });

describe('card payment page', () => {
  it('pays with the approved test card and returns to URL_OK; the page cannot be replayed', async () => {
    const page = await openCardPage('1001');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Pay 22.80 BGN to Sandbox Bookshop',
    );
    const details = (await page.locator('dl').textContent()) ?? '';
    expect(details).toContain('Sandbox Bookshop');
    expect(details).toContain('1001');
    expect(details).toContain('22.80 BGN');
    expect(details).toContain('Order 1001: 2 books');
    const registered = await obligationOf('1001');
    expect(registered).toMatchObject({ kind: 'online_payment', status: 'PENDING', amountMinor: 2280 });
    const token = await page.locator('input[name="token"]').inputValue();

    await fillCard(page, { number: '4000 0000 0000 0002' });
    await Promise.all([
      page.waitForURL(`${shopUrl}/ok?invoice=1001`),
      page.getByRole('button', { name: 'Pay 22.80 BGN' }).click(),
    ]);
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Thank you for your order');
    const paid = await obligationOf('1001');
    expect(paid).toMatchObject({ status: 'PAID', paidAmountMinor: 2280 });
    expect(paid?.stan).toMatch(/^\d{6}$/);

    // The same form posted again (a replayed or forged submission) pays nothing.
    const replay = await postApprovedCard(token);
    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain('<code id="error-code">PAGE_USED</code>');
    // Opening the checkout again shows the invoice as paid, without a form.
    const again = await openCardPage('1001');
    await expect(again.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Payment complete');
    expect(await again.locator('input[name="token"]').count()).toBe(0);
    await page.close();
    await again.close();
  });

  it('shows card errors next to their fields, then a declined card ends the obligation DENIED', async () => {
    const page = await openCardPage('1002', '15.00');
    await fillCard(page, { number: '4000 0000 0000 0001', expiry: '13/30', cvv: '12' });
    await page.getByRole('button', { name: 'Pay 15.00 BGN' }).click();
    await page.getByRole('alert').waitFor();
    const number = page.getByLabel('Card number');
    await expect(number.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#card-number-error').textContent()).resolves.toContain('check digit');
    await expect(page.locator('#card-expiry-error').textContent()).resolves.toContain('01 to 12');
    await expect(page.locator('#card-cvv-error').textContent()).resolves.toContain('3 digits');
    expect((await obligationOf('1002'))?.status).toBe('PENDING');

    await fillCard(page, { number: '4000 0000 0000 0069' });
    await page.getByRole('button', { name: 'Pay 15.00 BGN' }).click();
    await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain('declined');
    expect((await obligationOf('1002'))?.status).toBe('DENIED');
    await Promise.all([
      page.waitForURL(`${shopUrl}/cancel?invoice=1002`),
      page.getByRole('link', { name: 'Return to the merchant' }).click(),
    ]);
    await page.close();
  });

  it('cancel returns to URL_CANCEL and ends the obligation DENIED', async () => {
    const page = await openCardPage('1003');
    await Promise.all([
      page.waitForURL(`${shopUrl}/cancel?invoice=1003`),
      page.getByRole('button', { name: 'Cancel and return to the merchant' }).click(),
    ]);
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Payment cancelled');
    expect((await obligationOf('1003'))?.status).toBe('DENIED');
    await page.close();
  });
});

describe("3-D Secure challenge on the acquirer's page", () => {
  /** Pays with the challenge card; the card page links to the issuer's check, which is answered. */
  async function challenge(invoice: string, answer: { code: string; button: 'Confirm' | 'Cancel' }) {
    const page = await openCardPage(invoice, '31.50');
    await fillCard(page, { number: '4000 0000 0000 3220' });
    await page.getByRole('button', { name: 'Pay 31.50 BGN' }).click();
    await page.getByRole('heading', { name: 'Confirm the payment with your bank' }).waitFor();
    expect((await obligationOf(invoice))?.status).toBe('PENDING');
    await Promise.all([
      page.waitForURL(`${platform.sandbox.acquirer.url}/challenge/*`),
      page.getByRole('link', { name: 'Continue to your bank' }).click(),
    ]);
    await expect(page.locator('#amount').textContent()).resolves.toBe('31.50 BGN');
    await page.getByLabel('Confirmation code').fill(answer.code);
    await page.getByRole('button', { name: answer.button }).click();
    return page;
  }

  it('passed: the payment is captured and the customer returns to URL_OK', async () => {
    const page = await challenge('4001', { code: SANDBOX_3DS_CODE, button: 'Confirm' });
    await page.waitForURL(`${shopUrl}/ok?invoice=4001`);
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Thank you for your order');
    const paid = await obligationOf('4001');
    expect(paid).toMatchObject({ status: 'PAID', paidAmountMinor: 3150 });
    const [card] = await platform.db
      .select({ id: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, paid?.idn ?? ''));
    const captured = platform.sandbox.acquirer.authorisation(card?.id ?? '');
    expect(captured).toMatchObject({ status: 'captured', capturedMinor: 3150 });
    expect({ stan: paid?.stan, bcode: paid?.bcode }).toEqual({
      stan: captured?.capture?.stan,
      bcode: captured?.approvalCode,
    });
    // The return link again (reload, back button) decides nothing more.
    const again = await fetch(`${platform.collectUrl}/card/return?authorisation=${card?.id}`);
    expect(await again.text()).toContain('Payment complete');
    await page.close();
  });

  it('failed: the payment is declined (DENIED) and nothing is held', async () => {
    const page = await challenge('4002', { code: '000000', button: 'Confirm' });
    await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain(
      '3-D Secure authentication failed',
    );
    const denied = await obligationOf('4002');
    expect(denied?.status).toBe('DENIED');
    const [card] = await platform.db
      .select({ id: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, denied?.idn ?? ''));
    expect(platform.sandbox.acquirer.authorisation(card?.id ?? '')).toMatchObject({
      status: 'declined',
      capturedMinor: 0,
    });
    await page.close();
  });

  it('a forged return decides nothing the acquirer did not decide', async () => {
    const forged = await fetch(`${platform.collectUrl}/card/return?authorisation=auth_forged`);
    expect(forged.status).toBe(404);
    expect(await forged.text()).toContain('<code id="error-code">PAGE_NOT_FOUND</code>');
  });
});

describe('card payment page errors', () => {
  const post = (fields: Record<string, string>) =>
    fetch(`${platform.collectUrl}/`, { method: 'POST', body: new URLSearchParams(fields) });
  const errorCodeOf = async (response: Response) =>
    /<code id="error-code">([A-Z_]+)<\/code>/.exec(await response.text())?.[1];

  it('answers an HTML error page with the code and a 4xx, registering nothing', async () => {
    const good = { PAGE: 'credit_paydirect', ...signedPacket('2001', '10.00') };
    const cases: [Record<string, string>, number, string][] = [
      [{ ...good, CHECKSUM: signedPacket('2001', '10.01').CHECKSUM }, 401, 'BAD_CHECKSUM'],
      [
        { ...good, CHECKSUM: createHmac('sha1', 'another secret').update(good.ENCODED).digest('hex') },
        401,
        'BAD_CHECKSUM',
      ],
      [{ ...good, PAGE: 'paylogin' }, 400, 'BAD_FIELD'],
      [{ ENCODED: good.ENCODED, CHECKSUM: good.CHECKSUM }, 400, 'MISSING_FIELD'],
      [{ ...good, ENCODED: '%%%' }, 400, 'BAD_ENCODED'],
      [{ ...good, URL_OK: 'javascript:alert(1)' }, 400, 'BAD_FIELD'],
    ];
    for (const [fields, status, code] of cases) {
      const response = await post(fields);
      expect({ status: response.status, code: await errorCodeOf(response) }).toEqual({ status, code });
      expect(response.headers.get('content-type')).toContain('text/html');
    }
    const [registered] = await platform.db
      .select({ n: count() })
      .from(collectObligations)
      .where(eq(collectObligations.invoice, '2001'));
    expect(registered?.n).toBe(0);
  });

  it('refuses a form older than COLLECT_CARD_PAGE_TTL, leaving the obligation open', async () => {
    // Posted to the mount path without the trailing slash: the same page.
    const opened = await fetch(platform.collectUrl, {
      method: 'POST',
      body: new URLSearchParams({ PAGE: 'credit_paydirect', ...signedPacket('2002', '5.00') }),
    });
    expect(opened.status).toBe(200);
    const token = /name="token" value="([^"]+)"/.exec(await opened.text())?.[1] ?? '';
    const obligation = await obligationOf('2002');
    await platform.db
      .update(collectCardPages)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(collectCardPages.idn, obligation?.idn ?? ''));
    const late = await postApprovedCard(token);
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('<code id="error-code">PAGE_EXPIRED</code>');
    expect((await obligationOf('2002'))?.status).toBe('PENDING');
  });

  it('returns only to the signed URL_OK / URL_CANCEL: posted form fields are ignored (no open redirect)', async () => {
    const attacker = { URL_OK: 'https://attacker.example/ok', URL_CANCEL: 'https://attacker.example/cancel' };
    const open = async (invoice: string, returnUrls: { URL_OK?: string; URL_CANCEL?: string }) => {
      const opened = await post({
        PAGE: 'credit_paydirect',
        ...signedPacket(invoice, '7.00', returnUrls),
        ...attacker,
      });
      expect(opened.status).toBe(200);
      expect(opened.headers.get('content-security-policy')).not.toContain('attacker.example');
      return /name="token" value="([^"]+)"/.exec(await opened.text())?.[1] ?? '';
    };
    const submit = (token: string, fields: Record<string, string>) =>
      fetch(`${platform.collectUrl}/card/pay`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ token, ...fields, ...attacker }),
      });

    // Signed URLs in the packet: the customer returns there, whatever the form said.
    const signedUrls = { URL_OK: `${shopUrl}/ok?invoice=3001`, URL_CANCEL: `${shopUrl}/cancel?invoice=3001` };
    const paid = await submit(await open('3001', signedUrls), {
      action: 'pay',
      number: '4000000000000002',
      expiry: cardExpiry(),
      cvv: '123',
    });
    expect({ status: paid.status, location: paid.headers.get('location') }).toEqual({
      status: 303,
      location: signedUrls.URL_OK,
    });
    expect((await obligationOf('3001'))?.status).toBe('PAID');

    // No URLs in the packet: a result page, never a redirect to the posted fields.
    const unsignedPaid = await submit(await open('3002', {}), {
      action: 'pay',
      number: '4000000000000002',
      expiry: cardExpiry(),
      cvv: '123',
    });
    expect(unsignedPaid.status).toBe(200);
    expect(unsignedPaid.headers.get('location')).toBeNull();
    expect(await unsignedPaid.text()).not.toContain('attacker.example');
    const cancelled = await submit(await open('3003', {}), { action: 'cancel' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.headers.get('location')).toBeNull();
    expect(await cancelled.text()).not.toContain('attacker.example');
  });

  it('refuses a form without a page of this gateway (cross-site post)', async () => {
    const forged = await fetch(`${platform.collectUrl}/card/pay`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'forged-token', action: 'pay', number: '4000000000000002' }),
    });
    expect(forged.status).toBe(404);
    expect(await errorCodeOf(forged)).toBe('PAGE_NOT_FOUND');
  });
});
