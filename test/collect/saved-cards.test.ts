import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { savedCardOfToken, sealClearCardTokens } from '../../credentials/collect/card-tokens.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectCardPages } from '../../db/schema/collect-card-page.ts';
import { collectLedgerTransactions } from '../../db/schema/collect-ledger.ts';
import { collectNotifications } from '../../db/schema/collect-notifications.ts';
import { collectSavedCards } from '../../db/schema/collect-saved-cards.ts';
import { SANDBOX_3DS_CODE } from '../../sandbox/collect/acquirer.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { cardExpiry, openCardPage, submitCard } from './card-client.ts';
import { getText, newInvoice, signedPacket } from './epay-client.ts';

/**
 * Saved cards (decision 0045): SAVECARD=1 on the card page saves the approved card (a zero-amount
 * verification ends SAVED), the notification carries the gateway's token, and GET /card/charge.cgi
 * charges it without the customer (merchant-initiated, once per INVOICE); GET /card/forget.cgi ends it.
 * Everything over HTTP: the card page as the customer's browser posts it, the sandbox acquirer's 3-D
 * Secure page, the merchant's endpoints and the sandbox merchant receiving the notifications.
 */
let platform: TestPlatform;
let merchant: { min: string; secret: string };
let other: { min: string; secret: string };

beforeAll(async () => {
  platform = await startTestPlatform();
  merchant = await platform.createSandboxMerchant({ name: 'Subscription shop' });
  other = await platform.createSandboxMerchant({ name: 'Another shop' });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const [expiryMonth, expiryYear] = cardExpiry().split('/').map(Number) as [number, number];
const cardExp = `${String(expiryMonth).padStart(2, '0')}/${2000 + expiryYear}`;

const obligationOf = async (min: string, invoice: string) =>
  (
    await platform.db
      .select()
      .from(collectObligations)
      .where(and(eq(collectObligations.merchantMin, min), eq(collectObligations.invoice, invoice)))
  )[0];

/** The notification lines the sandbox merchant received for an invoice (decoded ENCODED). */
const notificationLines = (min: string, invoice: string) =>
  platform.sandbox.merchant.notifications
    .filter((post) => post.min === min)
    .flatMap((post) => Buffer.from(post.encoded, 'base64').toString('utf8').split('\n'))
    .filter((line) => line.startsWith(`INVOICE=${invoice}:`));
const notified = (min: string, invoice: string) =>
  eventually(async () => notificationLines(min, invoice)[0], 15_000, `the notification of ${invoice}`);
const lineFields = (line: string) =>
  Object.fromEntries(line.split(':').map((part) => part.split('=', 2) as [string, string]));

/** The customer's card on the card page; a 3-D Secure card passes the issuer's check. */
async function payOnCardPage(fields: Record<string, string>, number: string, secret = merchant.secret) {
  const opened = await openCardPage(platform.collectUrl, 'credit_paydirect', fields, secret);
  expect(opened.status, opened.html).toBe(200);
  const submitted = await submitCard(platform.collectUrl, opened.token ?? '', number);
  const challenge = /href="([^"]*\/challenge\/[^"]+)"/.exec(submitted.html)?.[1];
  if (!challenge) return { opened, result: submitted };
  const confirmed = await fetch(challenge, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ action: 'confirm', code: SANDBOX_3DS_CODE }),
  });
  expect(confirmed.status).toBe(303);
  const back = await fetch(confirmed.headers.get('location') ?? '', { redirect: 'manual' });
  return {
    opened,
    challenged: true,
    result: { status: back.status, location: back.headers.get('location'), html: await back.text() },
  };
}

/** Saves a card with a zero-amount verification; answers its CARD_TOKEN (from the notification). */
async function saveCard(number: string, owner = merchant) {
  const invoice = newInvoice();
  const { result } = await payOnCardPage(
    { MIN: owner.min, INVOICE: invoice, AMOUNT: '0', SAVECARD: '1', ENCODING: 'utf-8' },
    number,
    owner.secret,
  );
  expect(result.html).toContain('Card saved');
  return lineFields(await notified(owner.min, invoice)).CARD_TOKEN ?? '';
}

const charge = (fields: Record<string, string>, owner = merchant) =>
  getText(
    `${platform.collectUrl}/card/charge.cgi`,
    signedPacket({ MIN: owner.min, ENCODING: 'utf-8', ...fields }, owner.secret),
  );
const forget = (cardToken: string, owner = merchant) =>
  getText(
    `${platform.collectUrl}/card/forget.cgi`,
    signedPacket({ MIN: owner.min, CARD_TOKEN: cardToken }, owner.secret),
  );

const authorisationsOf = (idn: string) =>
  platform.sandbox.acquirer.requests.filter(
    (request) => request.path === '/v1/authorisations' && request.idempotencyKey === `${idn}:authorise`,
  );
const capturesOf = (idn: string) =>
  platform.sandbox.acquirer.requests.filter((request) => request.idempotencyKey === `${idn}:capture`);

describe('saving a card on the card page (SAVECARD=1)', () => {
  it('a zero-amount verification saves a frictionless card: SAVED, its hold voided, no money moved', async () => {
    const invoice = newInvoice();
    const { opened, result } = await payOnCardPage(
      { MIN: merchant.min, INVOICE: invoice, AMOUNT: '0.00', SAVECARD: '1', ENCODING: 'utf-8' },
      '4000000000000002',
    );
    expect(opened.html).toContain('Save your card with Subscription shop');
    expect(opened.html).toContain('id="save-card-notice"');
    expect(result.status).toBe(200);
    expect(result.html).toContain('Card saved');
    expect(result.html).toContain('VISA card ending in 0002 was saved');

    const row = await obligationOf(merchant.min, invoice);
    expect(row).toMatchObject({
      kind: 'online_payment',
      status: 'SAVED',
      amountMinor: 0,
      paidAmountMinor: null,
    });
    const [card] = await platform.db
      .select()
      .from(collectSavedCards)
      .where(eq(collectSavedCards.idn, row?.idn ?? ''));
    expect(card).toMatchObject({
      merchantMin: merchant.min,
      brand: 'VISA',
      last4: '0002',
      expiryMonth,
      expiryYear: 2000 + expiryYear,
      deletedAt: null,
    });
    // The CARD_TOKEN is kept sealed and as a keyed digest: no row holds it in clear, nor its charges.
    const token = lineFields(await notified(merchant.min, invoice)).CARD_TOKEN ?? '';
    expect(token).toMatch(/^ctk_[0-9a-f]{24}$/);
    expect(card?.id).toMatch(/^scd_[0-9a-f]{24}$/);
    expect(card?.tokenSealed).toMatch(/^v1\./);
    expect(JSON.stringify(card)).not.toContain(token);
    const notifications = await platform.db
      .select()
      .from(collectNotifications)
      .where(eq(collectNotifications.invoice, invoice));
    expect(notifications).toHaveLength(1);
    expect(JSON.stringify(notifications)).not.toContain(token);
    // The acquirer's token is kept encrypted: not even its prefix is readable.
    expect(card?.acquirerTokenCiphertext).toMatch(/^v1\./);
    expect(card?.acquirerTokenCiphertext).not.toContain('tok_');

    // The verification held nothing, and its authorisation is released.
    const [page] = await platform.db
      .select({ authorisationId: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, row?.idn ?? ''));
    expect(platform.sandbox.acquirer.authorisation(page?.authorisationId ?? '')).toMatchObject({
      status: 'voided',
      amountMinor: 0,
      capturedMinor: 0,
      card: { brand: 'visa', last4: '0002' },
    });
    const postings = await platform.db
      .select()
      .from(collectLedgerTransactions)
      .where(eq(collectLedgerTransactions.idn, row?.idn ?? ''));
    expect(postings).toEqual([]);

    expect(await notified(merchant.min, invoice)).toBe(
      `INVOICE=${invoice}:STATUS=SAVED:CARD_TOKEN=${token}:CARD_BRAND=VISA:CARD_LAST4=0002:CARD_EXP=${cardExp}`,
    );
    // The merchant reads the same from GET /notifications.
    const read = await fetch(
      `${platform.collectUrl}/notifications?${new URLSearchParams(signedPacket({ MIN: merchant.min, INVOICE: invoice }, merchant.secret))}`,
    );
    expect(((await read.json()) as { notifications: unknown[] }).notifications).toMatchObject([
      { status: 'SAVED', card: { token, brand: 'VISA', last4: '0002', expiry: cardExp } },
    ]);
  });

  it('a payment with a 3-D Secure card saves it after the challenge: PAID, with the card in its notification', async () => {
    const invoice = newInvoice();
    const { opened, challenged, result } = await payOnCardPage(
      { MIN: merchant.min, INVOICE: invoice, AMOUNT: '12.50', SAVECARD: '1', ENCODING: 'utf-8' },
      '4000000000003220',
    );
    expect(challenged).toBe(true);
    expect(opened.html).toContain('Pay 12.50 BGN to Subscription shop');
    expect(opened.html).toContain('id="save-card-notice"');
    expect(result.status).toBe(200);
    expect(result.html).toContain('Payment complete');
    expect(result.html).toContain('VISA card ending in 3220 was saved');

    const row = await obligationOf(merchant.min, invoice);
    expect(row).toMatchObject({ status: 'PAID', paidAmountMinor: 1250 });
    const fields = lineFields(await notified(merchant.min, invoice));
    expect(fields).toMatchObject({
      STATUS: 'PAID',
      PAY_TIME: row?.payTime,
      STAN: row?.stan,
      BCODE: row?.bcode,
      CARD_BRAND: 'VISA',
      CARD_LAST4: '3220',
      CARD_EXP: cardExp,
    });
    expect(fields.CARD_TOKEN).toMatch(/^ctk_[0-9a-f]{24}$/);
  });

  it('AMOUNT=0 is refused without SAVECARD=1; a payment without it saves nothing', async () => {
    const zero = await openCardPage(
      platform.collectUrl,
      'credit_paydirect',
      { MIN: merchant.min, INVOICE: newInvoice(), AMOUNT: '0' },
      merchant.secret,
    );
    expect(zero.status).toBe(400);
    expect(zero.html).toContain('BAD_FIELD');
    expect(zero.html).toContain('AMOUNT');

    const invoice = newInvoice();
    const { opened, result } = await payOnCardPage(
      { MIN: merchant.min, INVOICE: invoice, AMOUNT: '3.00' },
      '5555555555554444',
    );
    expect(opened.html).not.toContain('save-card-notice');
    expect(result.html).not.toContain('was saved');
    const line = await notified(merchant.min, invoice);
    expect(line).toMatch(/STATUS=PAID/);
    expect(line).not.toContain('CARD_TOKEN');
    const row = await obligationOf(merchant.min, invoice);
    expect(
      await platform.db
        .select()
        .from(collectSavedCards)
        .where(eq(collectSavedCards.idn, row?.idn ?? '')),
    ).toEqual([]);
  });

  it('a declined card is not saved', async () => {
    const invoice = newInvoice();
    const { result } = await payOnCardPage(
      { MIN: merchant.min, INVOICE: invoice, AMOUNT: '0', SAVECARD: '1' },
      '4000000000009995',
    );
    expect(result.html).toContain('It was not saved');
    const row = await obligationOf(merchant.min, invoice);
    expect(row?.status).toBe('DENIED');
    expect(await notified(merchant.min, invoice)).toBe(`INVOICE=${invoice}:STATUS=DENIED`);
    expect(
      await platform.db
        .select()
        .from(collectSavedCards)
        .where(eq(collectSavedCards.idn, row?.idn ?? '')),
    ).toEqual([]);
  });
});

describe('charging a saved card (GET /card/charge.cgi)', () => {
  it('a card an older release kept by its clear token is converted at start and still charged by it', async () => {
    const cardToken = await saveCard('4000000000000002');
    const key = collectSecretKey(platform.config);
    // As release 0.1.0 stored it: the token as the card's id, in clear in its notification.
    await platform.db
      .update(collectSavedCards)
      .set({ id: cardToken, tokenDigest: null, tokenSealed: null })
      .where(savedCardOfToken(key, cardToken));
    await platform.db
      .update(collectNotifications)
      .set({ cardToken })
      .where(
        and(eq(collectNotifications.merchantMin, merchant.min), isNotNull(collectNotifications.cardToken)),
      );
    const olderCharge = newInvoice();
    expect((await charge({ INVOICE: olderCharge, AMOUNT: '1.00', CARD_TOKEN: cardToken })).status).toBe(200);

    expect(await sealClearCardTokens(platform.db, key)).toBeGreaterThanOrEqual(2);
    const cards = await platform.db.select().from(collectSavedCards);
    const notifications = await platform.db.select().from(collectNotifications);
    const charged = await obligationOf(merchant.min, olderCharge);
    expect(JSON.stringify([cards, notifications, charged])).not.toContain(cardToken);
    const paid = await charge({ INVOICE: newInvoice(), AMOUNT: '2.00', CARD_TOKEN: cardToken });
    expect(paid.status, paid.body).toBe(200);
    expect(paid.body).toContain('STATUS=PAID');
  });

  it('approved without the customer (no 3-D Secure), captured and posted once; the same packet answers the same', async () => {
    // A 3-D Secure card: the charge is merchant-initiated, exempt from the challenge.
    const cardToken = await saveCard('4000000000003220');
    const invoice = newInvoice();
    const packet = { INVOICE: invoice, AMOUNT: '19.99', CARD_TOKEN: cardToken, DESCR: 'May subscription' };
    const paid = await charge(packet);
    expect(paid.status, paid.body).toBe(200);
    expect(paid.headers.get('idempotent-replayed')).toBeNull();
    const row = await obligationOf(merchant.min, invoice);
    expect(row).toMatchObject({ kind: 'card_charge', status: 'PAID', paidAmountMinor: 1999 });
    expect(paid.body).toBe(
      `IDN=${row?.idn}\nSTATUS=PAID\nPAY_TIME=${row?.payTime}\nSTAN=${row?.stan}\nBCODE=${row?.bcode}\n`,
    );

    // At the acquirer: one merchant-initiated authorisation by token, captured once; STAN and BCODE are its own.
    const [auth] = authorisationsOf(row?.idn ?? '');
    expect(auth?.status).toBe(201);
    const settlement = await platform.db
      .select()
      .from(collectLedgerTransactions)
      .where(eq(collectLedgerTransactions.idn, row?.idn ?? ''));
    expect(settlement).toMatchObject([{ kind: 'settlement' }]);
    const source = settlement[0]?.detail.source as { authorisationId?: string } | undefined;
    const authorisationId = source?.authorisationId;
    expect(platform.sandbox.acquirer.authorisation(authorisationId ?? '')).toMatchObject({
      reference: row?.idn,
      merchantInitiated: true,
      status: 'captured',
      capturedMinor: 1999,
      capture: { stan: row?.stan },
      approvalCode: row?.bcode,
      card: { last4: '3220' },
    });
    expect(await notified(merchant.min, invoice)).toBe(
      `INVOICE=${invoice}:STATUS=PAID:PAY_TIME=${row?.payTime}:STAN=${row?.stan}:BCODE=${row?.bcode}`,
    );

    // The same packet again: the first answer, nothing charged again, no second notification.
    const again = await charge(packet);
    expect(again.status).toBe(200);
    expect(again.body).toBe(paid.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(authorisationsOf(row?.idn ?? '')).toHaveLength(1);
    expect(capturesOf(row?.idn ?? '')).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(notificationLines(merchant.min, invoice)).toHaveLength(1);

    // Another packet with the same INVOICE.
    const other = await charge({ ...packet, AMOUNT: '20.00' });
    expect({ status: other.status, err: other.fields.ERR, field: other.fields.FIELD }).toEqual({
      status: 409,
      err: 'DUPLICATE_INVOICE',
      field: 'INVOICE',
    });
  });

  it('a decline is an answer (200, DENIED with REASON), notified, and the same packet answers it again', async () => {
    // Saved without trouble; its issuer declines every later merchant-initiated charge.
    const cardToken = await saveCard('4000000000000341');
    const invoice = newInvoice();
    const packet = { INVOICE: invoice, AMOUNT: '5.00', CARD_TOKEN: cardToken };
    const denied = await charge(packet);
    const row = await obligationOf(merchant.min, invoice);
    expect(denied.status).toBe(200);
    expect(denied.body).toBe(`IDN=${row?.idn}\nSTATUS=DENIED\nREASON=the issuer declined the payment\n`);
    expect(row).toMatchObject({ kind: 'card_charge', status: 'DENIED' });
    expect(capturesOf(row?.idn ?? '')).toEqual([]);
    expect(await notified(merchant.min, invoice)).toBe(`INVOICE=${invoice}:STATUS=DENIED`);
    const again = await charge(packet);
    expect(again.body).toBe(denied.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(authorisationsOf(row?.idn ?? '')).toHaveLength(1);
  });

  it('an acquirer that cannot be reached answers UNAVAILABLE; the same packet again charges once', async () => {
    const cardToken = await saveCard('5555555555554444');
    const invoice = newInvoice();
    const packet = { INVOICE: invoice, AMOUNT: '7.25', CARD_TOKEN: cardToken };
    // Each authorisation is made but its answer is lost, for all of this attempt's tries.
    platform.sandbox.acquirer.loseAnswers('authorise', 3);
    const unavailable = await charge(packet);
    expect({ status: unavailable.status, err: unavailable.fields.ERR }).toEqual({
      status: 503,
      err: 'UNAVAILABLE',
    });
    const row = await obligationOf(merchant.min, invoice);
    expect(row?.status).toBe('PENDING');

    const paid = await charge(packet);
    expect(paid.status, paid.body).toBe(200);
    expect(paid.fields).toMatchObject({ IDN: row?.idn, STATUS: 'PAID' });
    // The same idempotency key every time: one authorisation at the acquirer, captured once.
    expect(authorisationsOf(row?.idn ?? '').map((request) => request.status)).toEqual([503, 503, 503, 201]);
    expect(capturesOf(row?.idn ?? '')).toHaveLength(1);
    expect(lineFields(await notified(merchant.min, invoice)).STATUS).toBe('PAID');
  });

  it('only the merchant’s own saved cards are charged; a forgotten card no longer is', async () => {
    const cardToken = await saveCard('4000000000000002');
    const theirs = await saveCard('4000000000000002', other);

    const refused = async (fields: Record<string, string>, owner = merchant) => {
      const answer = await charge({ INVOICE: newInvoice(), AMOUNT: '1.00', ...fields }, owner);
      return { status: answer.status, err: answer.fields.ERR, field: answer.fields.FIELD };
    };
    const badToken = { status: 400, err: 'BAD_FIELD', field: 'CARD_TOKEN' };
    // Another merchant's card is answered exactly like an unknown one.
    expect(await refused({ CARD_TOKEN: theirs })).toEqual(badToken);
    expect(await refused({ CARD_TOKEN: `ctk_${'0'.repeat(24)}` })).toEqual(badToken);
    expect(await refused({ CARD_TOKEN: 'tok_acquirer' })).toEqual(badToken);
    expect((await forget(theirs)).fields).toMatchObject({ ERR: 'BAD_FIELD', FIELD: 'CARD_TOKEN' });
    expect(await refused({ CARD_TOKEN: cardToken }, other)).toEqual(badToken);

    const forgotten = await forget(cardToken);
    expect(forgotten.status).toBe(200);
    expect(forgotten.body).toBe(`CARD_TOKEN=${cardToken}\nSTATUS=DELETED\n`);
    expect((await forget(cardToken)).body).toBe(forgotten.body);
    expect(await refused({ CARD_TOKEN: cardToken })).toEqual(badToken);
    // The other merchant's card is untouched.
    expect(
      (await charge({ INVOICE: newInvoice(), AMOUNT: '1.00', CARD_TOKEN: theirs }, other)).fields.STATUS,
    ).toBe('PAID');
  });

  it('a charge sent before its card was forgotten is answered its first result', async () => {
    const cardToken = await saveCard('4000000000000002');
    const packet = { INVOICE: newInvoice(), AMOUNT: '2.00', CARD_TOKEN: cardToken };
    const paid = await charge(packet);
    expect(paid.fields.STATUS).toBe('PAID');
    await forget(cardToken);
    const again = await charge(packet);
    expect(again.body).toBe(paid.body);
  });
});

describe('deposit slips name the collection account', () => {
  it('GET /office/reg_vnbel.cgi answers IBAN and BENEFICIARY', async () => {
    const registered = await getText(
      `${platform.collectUrl}/office/reg_vnbel.cgi`,
      signedPacket(
        { MIN: merchant.min, INVOICE: newInvoice(), AMOUNT: '40.00', NAME: 'Ivan Petrov' },
        merchant.secret,
      ),
    );
    expect(registered.status).toBe(200);
    expect(registered.fields).toMatchObject({
      IBAN: 'BG80BNBG96611020345678',
      BENEFICIARY: 'Integration Platform Collections',
      STATUS: 'PENDING',
    });
    expect(registered.fields.IDN).toMatch(/^\d{10}$/);
  });
});
