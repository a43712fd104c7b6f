import { createHmac } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { cardExpiry } from './card-client.ts';
import { obligationRow } from './read-model.ts';

/**
 * ePay shops unchanged (decision 0013): a shop that keeps its existing ePay client posts URL_OK and
 * URL_CANCEL as form fields beside ENCODED and CHECKSUM. The card page honours them when they lie under
 * a return origin the merchant registered, and uses nothing else from outside the signed packet.
 */

const ADMIN_TOKEN = 'admin-token-for-return-origin-tests-0123456789';
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

/**
 * What the widely used ePay client libraries do, written here from the published ePay.bg interface (not
 * from the gateway's code): the packet is `KEY=VALUE` lines (MIN, INVOICE, AMOUNT, EXP_TIME as
 * DD.MM.YYYY, DESCR), ENCODED its base64, CHECKSUM the hex HMAC-SHA1 of ENCODED with the secret; the
 * checkout form posts PAGE, ENCODED, CHECKSUM, URL_OK and URL_CANCEL, in that order, urlencoded.
 */
class EpayClient {
  constructor(
    private readonly min: string,
    private readonly secret: string,
  ) {}

  checkoutForm(order: { invoice: string; amount: string; descr: string; urlOk: string; urlCancel: string }) {
    const expires = new Date(Date.now() + 2 * 86_400_000);
    const expTime = `${String(expires.getUTCDate()).padStart(2, '0')}.${String(expires.getUTCMonth() + 1).padStart(2, '0')}.${expires.getUTCFullYear()}`;
    const data = `MIN=${this.min}\nINVOICE=${order.invoice}\nAMOUNT=${order.amount}\nEXP_TIME=${expTime}\nDESCR=${order.descr}`;
    const encoded = Buffer.from(data).toString('base64');
    const checksum = createHmac('sha1', this.secret).update(encoded).digest('hex');
    return `PAGE=credit_paydirect&ENCODED=${encodeURIComponent(encoded)}&CHECKSUM=${checksum}&URL_OK=${encodeURIComponent(order.urlOk)}&URL_CANCEL=${encodeURIComponent(order.urlCancel)}`;
  }
}

let invoices = 0;
const invoice = () => `${Date.now() % 1_000_000_000}${++invoices}`;

/** The customer's browser: posts the shop's form, then pays (or cancels) on the card form. */
async function checkout(form: string, action: 'pay' | 'cancel') {
  const opened = await fetch(`${platform.collectUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const html = await opened.text();
  expect(opened.status, html.slice(0, 300)).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const fields: Record<string, string> =
    action === 'pay' ? { number: '4000000000000002', expiry: cardExpiry(), cvv: '123' } : {};
  const submitted = await fetch(`${platform.collectUrl}/card/pay`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ token, action, ...fields }),
  });
  return {
    status: submitted.status,
    location: submitted.headers.get('location'),
    csp: opened.headers.get('content-security-policy') ?? '',
    html: await submitted.text(),
  };
}

const setOrigins = (min: string, returnOrigins: string[]) =>
  fetch(`${platform.apiUrl}/admin/collect/merchants/${min}/return-origins`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ returnOrigins }),
  });

describe('URL_OK / URL_CANCEL as form fields (decision 0013)', () => {
  it('returns the customer to the form fields under the merchant’s registered return origins', async () => {
    const merchant = await platform.createMerchant({
      name: 'Book shop',
      returnOrigins: ['https://Books.example:443/'],
    });
    expect(merchant.returnOrigins).toEqual(['https://books.example']);
    const client = new EpayClient(merchant.min, merchant.secret);

    const paid = invoice();
    const payment = await checkout(
      client.checkoutForm({
        invoice: paid,
        amount: '12.40',
        descr: 'Order 1: 2 books',
        urlOk: `https://books.example/epay/ok?order=${paid}`,
        urlCancel: `https://books.example/epay/cancel?order=${paid}`,
      }),
      'pay',
    );
    expect({ status: payment.status, location: payment.location }).toEqual({
      status: 303,
      location: `https://books.example/epay/ok?order=${paid}`,
    });

    const cancelled = invoice();
    const cancel = await checkout(
      client.checkoutForm({
        invoice: cancelled,
        amount: '3.00',
        descr: 'Order 2',
        urlOk: 'https://books.example/epay/ok',
        urlCancel: `https://books.example/epay/cancel?order=${cancelled}`,
      }),
      'cancel',
    );
    expect({ status: cancel.status, location: cancel.location }).toEqual({
      status: 303,
      location: `https://books.example/epay/cancel?order=${cancelled}`,
    });
  });

  it('uses no form field outside the registered origins, and none for a merchant without origins', async () => {
    const merchant = await platform.createMerchant({
      name: 'Tea shop',
      returnOrigins: ['https://tea.example'],
    });
    const client = new EpayClient(merchant.min, merchant.secret);
    for (const elsewhere of [
      'https://attacker.example/ok',
      'https://tea.example.attacker.example/ok',
      'https://tea.example@attacker.example/ok',
      'http://tea.example/ok',
      'https://tea.example:8443/ok',
    ]) {
      const order = invoice();
      const outcome = await checkout(
        client.checkoutForm({
          invoice: order,
          amount: '5.00',
          descr: 'Tea',
          urlOk: elsewhere,
          urlCancel: elsewhere,
        }),
        'pay',
      );
      expect({ status: outcome.status, location: outcome.location }, elsewhere).toEqual({
        status: 200,
        location: null,
      });
      expect(outcome.html).not.toContain('attacker.example');
      expect(outcome.csp).not.toContain('attacker.example');
      expect((await obligationRow(platform.db, (await paidIdn(merchant.min, order)) ?? ''))?.status).toBe(
        'PAID',
      );
    }

    // Without registered origins, as before: the form fields are not used.
    const unregistered = await platform.createMerchant({ name: 'Old shop' });
    const order = invoice();
    const outcome = await checkout(
      new EpayClient(unregistered.min, unregistered.secret).checkoutForm({
        invoice: order,
        amount: '5.00',
        descr: 'Old',
        urlOk: 'https://old.example/ok',
        urlCancel: 'https://old.example/cancel',
      }),
      'pay',
    );
    expect({ status: outcome.status, location: outcome.location }).toEqual({ status: 200, location: null });
  });

  it('an operator sets a merchant’s return origins; bad ones and unknown merchants are refused', async () => {
    const merchant = await platform.createMerchant({ name: 'Later shop' });
    const set = await setOrigins(merchant.min, ['https://later.example', 'https://LATER.example/']);
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ min: merchant.min, returnOrigins: ['https://later.example'] });
    const order = invoice();
    const outcome = await checkout(
      new EpayClient(merchant.min, merchant.secret).checkoutForm({
        invoice: order,
        amount: '8.00',
        descr: 'Later',
        urlOk: 'https://later.example/thanks',
        urlCancel: 'https://later.example/basket',
      }),
      'pay',
    );
    expect(outcome.location).toBe('https://later.example/thanks');

    for (const bad of [
      'https://later.example/path',
      'ftp://later.example',
      'later.example',
      'https://u:p@later.example',
    ]) {
      const refused = await setOrigins(merchant.min, [bad]);
      expect(refused.status, bad).toBe(400);
      expect(
        ((await refused.json()) as { error: { fields?: { field: string }[] } }).error.fields?.[0]?.field,
      ).toBe('returnOrigins');
    }
    expect((await setOrigins('D000000001', ['https://x.example'])).status).toBe(404);
    // Cleared: back to signed URLs only.
    expect(await (await setOrigins(merchant.min, [])).json()).toEqual({
      min: merchant.min,
      returnOrigins: [],
    });
  });
});

/** The IDN of the merchant's obligation for an invoice. */
async function paidIdn(min: string, invoiceId: string): Promise<string | undefined> {
  const [row] = await platform.db
    .select({ idn: collectObligations.idn })
    .from(collectObligations)
    .where(and(eq(collectObligations.merchantMin, min), eq(collectObligations.invoice, invoiceId)));
  return row?.idn;
}
