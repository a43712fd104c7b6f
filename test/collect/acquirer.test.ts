import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AcquirerRefusal,
  type AuthorisationRequest,
  createHttpAcquirer,
} from '../../connectors/collect/acquirer.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { collectCardPages } from '../../db/schema/collect-card-page.ts';
import { SANDBOX_3DS_CODE } from '../../sandbox/collect/acquirer.ts';
import { TEST_ACQUIRER_API_KEY } from '../support/isolated-platform.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { cardExpiry, holdWithCard, openCardPage, submitCard } from './card-client.ts';
import { expTimeIn, newInvoice, postForm, signedPacket } from './epay-client.ts';

/**
 * The card acquirer behind the card page and pre-authorisation (decision 0032): the sandbox acquirer
 * as a separate HTTP party, its API key, its holds, and the gateway's holds limited by it.
 */
let platform: TestPlatform;
let merchant: { min: string; secret: string };

beforeAll(async () => {
  platform = await startTestPlatform();
  merchant = await platform.createMerchant({ name: 'Hotel Sandbox' });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

const acquirer = (apiKey = TEST_ACQUIRER_API_KEY) =>
  createHttpAcquirer({ id: 'sandbox-acquirer', url: platform.sandbox.acquirer.url, apiKey });

const [expiryMonth, expiryYear] = cardExpiry().split('/').map(Number) as [number, number];
const authorisation = (
  reference: string,
  amountMinor = 10_000,
  number = '4000000000000002',
): AuthorisationRequest => ({
  reference,
  amountMinor,
  currency: 'BGN',
  card: { number, expiryMonth, expiryYear: 2000 + expiryYear, cvv: '123' },
  returnUrl: 'http://127.0.0.1:9/return',
});

const refusalOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AcquirerRefusal);
  const refusal = error as AcquirerRefusal;
  return { code: refusal.code, status: refusal.httpStatus };
};

describe('the sandbox acquirer', () => {
  it('refuses a wrong or missing API key', async () => {
    expect(
      await refusalOf(acquirer('not-the-key-0123456789').authorise(authorisation('r-1'), 'k-1')),
    ).toEqual({
      code: 'unauthorised',
      status: 401,
    });
    const bare = await fetch(`${platform.sandbox.acquirer.url}/v1/authorisations/any`);
    expect(bare.status).toBe(401);
    // Nothing was authorised with the wrong key.
    expect(platform.sandbox.acquirer.requests.filter((r) => r.status !== 401)).toEqual([]);
  });

  it('keeps its holds: capture at most the hold, void releases, refund at most the capture', async () => {
    const api = acquirer();
    const held = await api.authorise(authorisation('r-2', 10_000), 'r-2:authorise');
    expect(held).toMatchObject({ status: 'authorised', amountMinor: 10_000, capturedMinor: 0 });
    expect(held.stan).toMatch(/^\d{6}$/);
    expect(held.approvalCode).toMatch(/^[0-9A-F]{6}$/);
    // The same key and request again: the same authorisation; another request with it: refused.
    expect((await api.authorise(authorisation('r-2', 10_000), 'r-2:authorise')).id).toBe(held.id);
    expect(await refusalOf(api.authorise(authorisation('r-2', 9_000), 'r-2:authorise'))).toEqual({
      code: 'idempotency_conflict',
      status: 409,
    });

    expect(await refusalOf(api.capture(held.id, 10_001, 'r-2:capture-too-much'))).toEqual({
      code: 'amount_exceeds_authorisation',
      status: 422,
    });
    const captured = await api.capture(held.id, 7_000, 'r-2:capture');
    expect(captured).toMatchObject({ status: 'captured', capturedMinor: 7_000 });
    expect((await api.capture(held.id, 7_000, 'r-2:capture')).capture).toEqual(captured.capture);
    expect(await refusalOf(api.capture(held.id, 1_000, 'r-2:capture-again'))).toMatchObject({
      code: 'invalid_state',
    });
    expect(await refusalOf(api.refund(held.id, 7_001, 'r-2:refund-too-much'))).toMatchObject({
      code: 'amount_exceeds_captured',
    });
    expect((await api.refund(held.id, 7_000, 'r-2:refund')).refundedMinor).toBe(7_000);
    expect(await refusalOf(api.void(held.id, 'r-2:void'))).toMatchObject({ code: 'invalid_state' });

    const other = await api.authorise(authorisation('r-3', 5_000), 'r-3:authorise');
    expect((await api.void(other.id, 'r-3:void')).status).toBe('voided');
    expect(await refusalOf(api.capture(other.id, 5_000, 'r-3:capture'))).toMatchObject({
      code: 'invalid_state',
    });

    const declined = await api.authorise(authorisation('r-4', 5_000, '4000000000009995'), 'r-4:authorise');
    expect(declined).toMatchObject({ status: 'declined', declineReason: 'insufficient funds' });
  });
});

describe('stored cards at the sandbox acquirer (decision 0045)', () => {
  const storing = (reference: string, amountMinor: number, number: string): AuthorisationRequest => ({
    ...authorisation(reference, amountMinor, number),
    storeCard: true,
  });
  const charging = (reference: string, amountMinor: number, cardToken: string): AuthorisationRequest => ({
    reference,
    amountMinor,
    currency: 'BGN',
    cardToken,
    merchantInitiated: true,
  });

  it('answers the token of an approved card; a zero amount only verifies it, and only with storeCard', async () => {
    const api = acquirer();
    const verified = await api.authorise(storing('s-1', 0, '5555555555554444'), 's-1:authorise');
    expect(verified).toMatchObject({
      status: 'authorised',
      amountMinor: 0,
      card: { brand: 'mastercard', last4: '4444', expiryMonth, expiryYear: 2000 + expiryYear },
    });
    expect(verified.cardToken).toMatch(/^tok_[0-9a-f]{24}$/);
    // The same key again: the same authorisation and token, no second card.
    expect((await api.authorise(storing('s-1', 0, '5555555555554444'), 's-1:authorise')).cardToken).toBe(
      verified.cardToken,
    );
    expect((await api.void(verified.id, 's-1:void')).status).toBe('voided');
    expect(await refusalOf(api.authorise(authorisation('s-2', 0), 's-2:authorise'))).toEqual({
      code: 'bad_request',
      status: 400,
    });
    // Without storeCard nothing is stored; a declined card is never stored.
    expect((await api.authorise(authorisation('s-3', 100), 's-3:authorise')).cardToken).toBeUndefined();
    const declined = await api.authorise(storing('s-4', 100, '4000000000009995'), 's-4:authorise');
    expect(declined).toMatchObject({ status: 'declined' });
    expect(declined.cardToken).toBeUndefined();
  });

  it('stores a 3-D Secure card once the challenge is passed', async () => {
    const api = acquirer();
    const challenged = await api.authorise(storing('s-5', 500, '4000000000003220'), 's-5:authorise');
    expect(challenged.status).toBe('challenge_required');
    expect(challenged.cardToken).toBeUndefined();
    const passed = await fetch(challenged.challengeUrl ?? '', {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ action: 'confirm', code: SANDBOX_3DS_CODE }),
    });
    expect(passed.status).toBe(303);
    const approved = await api.get(challenged.id);
    expect(approved).toMatchObject({ status: 'authorised', card: { brand: 'visa', last4: '3220' } });
    expect(approved.cardToken).toMatch(/^tok_/);
  });

  it('charges a stored card merchant-initiated, without a challenge; unknown tokens and cardholder-less requests are refused', async () => {
    const api = acquirer();
    const stored = await api.authorise(storing('s-6', 0, '4000000000003220'), 's-6:authorise');
    // Stored once its 3-D Secure challenge is passed.
    await fetch(stored.challengeUrl ?? '', {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ action: 'confirm', code: SANDBOX_3DS_CODE }),
    });
    const cardToken = (await api.get(stored.id)).cardToken ?? '';
    const charged = await api.authorise(charging('s-7', 2_500, cardToken), 's-7:authorise');
    expect(charged).toMatchObject({
      status: 'authorised',
      merchantInitiated: true,
      amountMinor: 2_500,
      cardLast4: '3220',
    });
    expect(charged.challengeUrl).toBeUndefined();
    expect((await api.capture(charged.id, 2_500, 's-7:capture')).capturedMinor).toBe(2_500);
    expect((await api.authorise(charging('s-7', 2_500, cardToken), 's-7:authorise')).id).toBe(charged.id);

    expect(await refusalOf(api.authorise(charging('s-8', 100, 'tok_unknown'), 's-8:authorise'))).toEqual({
      code: 'unknown_card_token',
      status: 404,
    });
    const cardholderLess = await fetch(`${platform.sandbox.acquirer.url}/v1/authorisations`, {
      method: 'POST',
      headers: {
        'x-api-key': TEST_ACQUIRER_API_KEY,
        'idempotency-key': 's-9:authorise',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ reference: 's-9', amountMinor: 100, currency: 'BGN', cardToken }),
    });
    expect(cardholderLess.status).toBe(400);

    // Stored without trouble, declined for every merchant-initiated charge.
    const verified = await api.authorise(storing('s-10', 0, '4000000000000341'), 's-10:authorise');
    const refused = await api.authorise(charging('s-11', 100, verified.cardToken ?? ''), 's-11:authorise');
    expect(refused).toMatchObject({ status: 'declined', declineReason: 'the issuer declined the payment' });
  });
});

describe('pre-authorisation holds at the acquirer', () => {
  const v3 = (fields: Record<string, string>) =>
    postForm(
      `${platform.collectUrl}/v3main/`,
      signedPacket({ MIN: merchant.min, ...fields }, merchant.secret),
    );
  const holdPacket = (amount: string) => ({
    MIN: merchant.min,
    PHASE: 'REGISTER',
    INVOICE: newInvoice(),
    AMOUNT: amount,
    EXP_TIME: expTimeIn(86_400_000),
    URL_OK: 'https://hotel.example/ok',
  });
  const statusOf = async (idn: string) =>
    (await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn)))[0]?.status;
  const authorisationOf = async (idn: string) => {
    const [page] = await platform.db
      .select({ id: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, idn));
    return platform.sandbox.acquirer.authorisation(page?.id ?? '');
  };
  /** REGISTER, then the customer's card on the hold page: answers the IDN of a HELD hold. */
  async function hold(amount: string): Promise<string> {
    const packet = holdPacket(amount);
    const registered = await postForm(
      `${platform.collectUrl}/v3main/`,
      signedPacket(packet, merchant.secret),
    );
    expect(registered.fields).toMatchObject({ STATUS: 'PENDING', AMOUNT: amount });
    const idn = registered.fields.IDN ?? '';
    const held = await holdWithCard(platform.collectUrl, packet, merchant.secret);
    expect({ status: held.status, location: held.location }).toEqual({
      status: 303,
      location: packet.URL_OK,
    });
    expect(await statusOf(idn)).toBe('HELD');
    return idn;
  }

  it('holds nothing until the card is authorised; finalize above the hold is refused, at it captures it all', async () => {
    const packet = holdPacket('50.00');
    const registered = await postForm(
      `${platform.collectUrl}/v3main/`,
      signedPacket(packet, merchant.secret),
    );
    const idn = registered.fields.IDN ?? '';
    expect(registered.fields.STATUS).toBe('PENDING');
    const early = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '50.00' });
    expect({ status: early.status, err: early.fields.ERR }).toEqual({ status: 409, err: 'NOT_HELD' });

    const held = await holdWithCard(platform.collectUrl, packet, merchant.secret);
    expect(held.status).toBe(303);
    expect(await statusOf(idn)).toBe('HELD');
    expect(await authorisationOf(idn)).toMatchObject({
      status: 'authorised',
      amountMinor: 5000,
      reference: idn,
    });

    const above = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '50.01' });
    expect({ status: above.status, err: above.fields.ERR }).toEqual({
      status: 422,
      err: 'AMOUNT_EXCEEDS_HOLD',
    });
    expect(await authorisationOf(idn)).toMatchObject({ status: 'authorised', capturedMinor: 0 });

    const at = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '50.00' });
    expect(at.status, at.body).toBe(200);
    const captured = await authorisationOf(idn);
    expect(captured).toMatchObject({ status: 'captured', capturedMinor: 5000 });
    // STAN and BCODE are the acquirer's: the capture's trace number and the issuer's approval code.
    expect(at.fields).toMatchObject({
      IDN: idn,
      STATUS: 'PAID',
      AMOUNT: '50.00',
      STAN: captured?.capture?.stan,
      BCODE: captured?.approvalCode,
    });
    // Repeated, the same answer; nothing captured again.
    expect((await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '50.00' })).fields).toEqual(at.fields);
    const captures = platform.sandbox.acquirer.requests.filter((r) => r.path.endsWith('/capture'));
    expect(captures.filter((r) => r.idempotencyKey === `${idn}:capture`)).toHaveLength(1);
  });

  it('finalize below the hold captures that amount (the rest is released)', async () => {
    const idn = await hold('30.00');
    const below = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '12.34' });
    expect(below.fields).toMatchObject({ STATUS: 'PAID', AMOUNT: '12.34' });
    expect(await authorisationOf(idn)).toMatchObject({
      status: 'captured',
      amountMinor: 3000,
      capturedMinor: 1234,
    });
  });

  it('reverse voids the hold at the acquirer; a reversed hold cannot be finalized', async () => {
    const idn = await hold('20.00');
    const reversed = await v3({ PHASE: 'REVERSE', IDN: idn });
    expect(reversed.fields).toMatchObject({ IDN: idn, STATUS: 'REVERSED' });
    expect(await authorisationOf(idn)).toMatchObject({ status: 'voided', capturedMinor: 0 });
    const late = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '20.00' });
    expect(late.fields.ERR).toBe('ALREADY_FINAL');
    expect(await authorisationOf(idn)).toMatchObject({ status: 'voided' });
  });

  it('a hold whose card is declined ends DENIED and holds nothing', async () => {
    const packet = holdPacket('15.00');
    const declined = await holdWithCard(platform.collectUrl, packet, merchant.secret, '4000000000000127');
    expect(declined.status).toBe(200);
    expect(declined.html).toContain('Payment declined');
    const [row] = await platform.db
      .select()
      .from(collectObligations)
      .where(eq(collectObligations.invoice, packet.INVOICE));
    expect(row).toMatchObject({ kind: 'preauth', status: 'DENIED' });
  });

  it('a hold released at the acquirer cannot be finalized (ACQUIRER_REFUSED, still HELD) but can be reversed', async () => {
    const idn = await hold('18.00');
    const authorisationId = (await authorisationOf(idn))?.id ?? '';
    await acquirer().void(authorisationId, 'released-by-the-acquirer');
    const refused = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '18.00' });
    expect({ status: refused.status, err: refused.fields.ERR }).toEqual({
      status: 502,
      err: 'ACQUIRER_REFUSED',
    });
    expect(await statusOf(idn)).toBe('HELD');
    const reversed = await v3({ PHASE: 'REVERSE', IDN: idn });
    expect(reversed.fields).toMatchObject({ IDN: idn, STATUS: 'REVERSED' });
  });

  it('a capture whose answer is lost is asked again with the same key, and the money is taken once', async () => {
    const idn = await hold('40.00');
    platform.sandbox.acquirer.loseAnswers('capture', 2);
    const paid = await v3({ PHASE: 'FINALIZE', IDN: idn, AMOUNT: '40.00' });
    expect(paid.fields).toMatchObject({ STATUS: 'PAID', AMOUNT: '40.00' });
    const asked = platform.sandbox.acquirer.requests.filter((r) => r.idempotencyKey === `${idn}:capture`);
    expect(asked.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(await authorisationOf(idn)).toMatchObject({ status: 'captured', capturedMinor: 4000 });
  });

  it('a void under way survives a worker restart and is made once', async () => {
    const idn = await hold('25.00');
    platform.sandbox.acquirer.loseAnswers('void', 1_000);
    const reversing = v3({ PHASE: 'REVERSE', IDN: idn });
    const asked = () => platform.sandbox.acquirer.requests.filter((r) => r.idempotencyKey === `${idn}:void`);
    await eventually(async () => (asked().length > 0 ? true : undefined), 15_000, 'the first void');
    await platform.stopWorker();
    platform.sandbox.acquirer.loseAnswers('void', 0);
    await platform.startWorker();
    const reversed = await reversing;
    expect(reversed.fields).toMatchObject({ IDN: idn, STATUS: 'REVERSED' });
    expect(asked().at(-1)?.status).toBe(200);
    expect(await authorisationOf(idn)).toMatchObject({ status: 'voided' });
  });
});

describe('online payment', () => {
  it('is authorised and captured at the acquirer; STAN and BCODE are its own', async () => {
    const packet = {
      MIN: merchant.min,
      INVOICE: newInvoice(),
      AMOUNT: '9.99',
      EXP_TIME: expTimeIn(86_400_000),
      URL_OK: 'https://hotel.example/paid',
    };
    const opened = await openCardPage(platform.collectUrl, 'credit_paydirect', packet, merchant.secret);
    const paid = await submitCard(platform.collectUrl, opened.token ?? '', '5555555555554444');
    expect({ status: paid.status, location: paid.location }).toEqual({
      status: 303,
      location: packet.URL_OK,
    });
    const [row] = await platform.db
      .select()
      .from(collectObligations)
      .where(eq(collectObligations.invoice, packet.INVOICE));
    const [page] = await platform.db
      .select({ id: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, row?.idn ?? ''));
    const captured = platform.sandbox.acquirer.authorisation(page?.id ?? '');
    expect(captured).toMatchObject({ status: 'captured', capturedMinor: 999 });
    expect(row).toMatchObject({
      status: 'PAID',
      paidAmountMinor: 999,
      stan: captured?.capture?.stan,
      bcode: captured?.approvalCode,
    });
  });
});
