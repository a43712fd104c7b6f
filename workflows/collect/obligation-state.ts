import {
  ActivityFailure,
  ApplicationFailure,
  log,
  patched,
  proxyActivities,
  upsertMemo,
} from '@temporalio/workflow';
import type { CollectActivities } from '../../activities/collect/index.ts';
import { settlementChannels } from '../../domain/collect/ledger.ts';
import {
  isOpen,
  notificationStatusOf,
  ObligationRefusal,
  type ObligationStatus,
  officePayableKinds,
  PAYOUT_BCODE,
  PAYOUT_STAN,
  refusalOf,
} from '../../domain/collect/obligation.ts';
import type {
  CardPaymentDecision,
  MerchantNotification,
  ObligationInput,
  ObligationOutcome,
  PaymentReversal,
  SavedCardView,
  SettlementSource,
} from '../../domain/collect/processes.ts';
import { formatPayTime } from '../../domain/epay-time.ts';
import { dataRefusalOf } from '../../domain/permanent-failures.ts';

// The state and the steps of one obligation workflow (workflows/collect/obligation.ts). Replay safety:
// running obligations replay through these methods, so each keeps the awaits of the code it came from
// (an extra `await` or `async` wrapper can reorder commands of handlers running at once).

const { recordObligationStatus, recordObligationExpiry, recordObligationReversal, reservePayout } =
  proxyActivities<CollectActivities>({
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });

// The card acquirer (activities/collect/acquirer.ts): a capture or void asked for by a merchant or a
// customer waiting for the answer gives up after a few minutes (the update fails; the same request
// may be sent again: the acquirer's idempotency key makes it the same operation); releasing an expired
// hold nobody waits for is retried until it is done.
const { captureCard, voidCard, recordCardHold, saveCard } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 8 },
});
// A saved-card charge (decision 0045) is answered to the merchant waiting on charge.cgi: an acquirer
// that does not answer after a few quick attempts leaves it open (ERR=UNAVAILABLE); the same packet
// again tries once more, with the same idempotency keys.
const { authoriseSavedCard, captureCard: captureCharge } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '2 seconds', maximumAttempts: 3 },
});
const { voidCard: releaseCard } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

/** The change id of a REVERSED notification carrying the reversed payment's PAY_TIME (decision 0063, amended). */
export const REVERSAL_PAY_TIME_PATCH = 'collect-reversal-pay-time';

type Refusal = { type: string; message: string };
type CardAuthorisation = { acquirer: string; authorisationId: string };

const refuse = (type: string, message: string): never => {
  throw ApplicationFailure.nonRetryable(message, type);
};

/** A failed acquirer activity as a refusal: the acquirer's own (non-retryable) one, else `unreachable`. */
function acquirerRefusal(error: unknown, unreachable: Refusal): Refusal {
  if (!(error instanceof ActivityFailure)) throw error;
  const cause = error.cause;
  return cause instanceof ApplicationFailure && cause.nonRetryable && cause.type
    ? { type: cause.type, message: cause.message }
    : unreachable;
}

const cardSource = (authorised: CardAuthorisation) => ({
  channel: 'card' as const,
  acquirer: authorised.acquirer,
  authorisationId: authorised.authorisationId,
});

/**
 * One obligation, hold, payout or saved-card charge while its workflow runs: where it stands, and
 * the steps that move it (each Update's check and its work). A step moves the status before its first
 * await, so the same Update again is refused by its check while the first one is under way.
 */
export class Obligation {
  /** A pre-authorisation holds nothing until the customer's card is authorised on the card page (HELD). */
  status: ObligationStatus = 'PENDING';
  expiresAtMs: number;
  /** A capture or void is under way: other card operations wait, and so does the expiry. */
  acquirerBusy = false;
  private paid: { amountMinor: number; payTime: string; stan: string; bcode: string } | undefined;
  /** A payment is being recorded (settle): the main loop waits for it before it decides the end. */
  settling = false;
  /** DENIED by the card: the decline reason. */
  private reason: string | undefined;
  /** SAVECARD=1: the card saved once the acquirer approved it (told to the merchant). */
  private savedCard: SavedCardView | undefined;
  /** The acquirer's authorisation of the customer's card, once the card page (or a charge) has one. */
  private card: CardAuthorisation | undefined;
  /** Why the last charge attempt left the obligation open (the acquirer unreachable, or refusing). */
  private chargeFailure: Refusal | undefined;
  private chargeAttempt: Promise<void> | undefined;
  /** A cash payout's reservation of its money (ledger: merchant → payouts owed). */
  private readonly reserved: Promise<void> | undefined;
  /** How many payments of the obligation the bank has taken back (decision 0063). */
  private round = 0;

  constructor(private readonly input: ObligationInput) {
    this.expiresAtMs = Date.parse(input.expiresAt);
    // A run started to take back a payment begins where the run that took it ended: PAID.
    if (input.reversal) {
      this.status = 'PAID';
      this.round = input.reversal.round - 1;
    }
    // A cash payout reserves its money before it can be collected. (patched: a payout started before
    // the ledger has no reservation, and its history no such activity.)
    this.reserved =
      input.kind === 'payout_office' && patched('collect-ledger-payout-reservation')
        ? reservePayout({ idn: input.idn, at: new Date().toISOString() })
        : undefined;
  }

  isOpen(): boolean {
    return isOpen(this.status);
  }

  /** What an Update answers. */
  outcome(): ObligationOutcome {
    return {
      status: this.status,
      amountMinor: this.input.amountMinor,
      paidAmountMinor: this.paid?.amountMinor,
      payTime: this.paid?.payTime,
      stan: this.paid?.stan,
      bcode: this.paid?.bcode,
      expiresAt: new Date(this.expiresAtMs).toISOString(),
      reason: this.reason,
      savedCard: this.savedCard,
    };
  }

  // --- paid at an office, credited to a provider, a new expiry ----------------------------------

  refuseUnlessPayableAtOffice(source: SettlementSource | undefined): void {
    const { kind } = this.input;
    if (kind !== 'payout_office' && !officePayableKinds.includes(kind)) {
      refuse(ObligationRefusal.wrongKind, `a ${kind} obligation is not paid at an office`);
    }
    if (!source || !settlementChannels[kind].includes(source.channel)) {
      refuse(ObligationRefusal.wrongKind, `a ${kind} is not settled through ${source?.channel}`);
    }
    this.refuseUnlessOpen();
  }

  payAtOffice(payment: {
    stan: string;
    bcode: string;
    source: SettlementSource;
  }): Promise<ObligationOutcome> {
    // A payout is collected with STAN and BCODE 000000, whatever the office says.
    if (this.input.kind === 'payout_office') {
      return this.settle(this.input.amountMinor, PAYOUT_STAN, PAYOUT_BCODE, payment.source);
    }
    return this.settle(this.input.amountMinor, payment.stan, payment.bcode, payment.source);
  }

  /** The gateway is the provider: a send to a provider account is credited at once. */
  creditProviderAccount(): Promise<ObligationOutcome> {
    return this.settle(this.input.amountMinor, PAYOUT_STAN, PAYOUT_BCODE, {
      channel: 'provider_account',
      account: this.input.providerAccount ?? '',
    });
  }

  refuseExpiryChange(expiresAt: string): void {
    this.refuseUnlessOpen();
    if (!(Date.parse(expiresAt) > Date.now()))
      refuse(ObligationRefusal.badField, 'the new expiry has passed');
  }

  async changeExpiry(expiresAt: string): Promise<ObligationOutcome> {
    this.expiresAtMs = Date.parse(expiresAt);
    await recordObligationExpiry({ idn: this.input.idn, expiresAt, at: new Date().toISOString() });
    return this.outcome();
  }

  // --- the card page: authorised, declined or cancelled ------------------------------------------

  refuseCardPayment(decision: CardPaymentDecision): void {
    const { kind } = this.input;
    if (kind !== 'online_payment' && kind !== 'preauth') {
      refuse(ObligationRefusal.wrongKind, 'only an online payment or a hold is paid on the card page');
    }
    this.refuseUnlessOpen();
    this.refuseWhileAcquirerBusy();
    if (this.card) {
      refuse(ObligationRefusal.alreadyFinal, 'a card has been authorised for this obligation already');
    }
    if (decision.outcome === 'approved' && decision.amountMinor !== this.input.amountMinor) {
      refuse(ObligationRefusal.badField, 'the authorised amount is not the amount of the obligation');
    }
  }

  /**
   * The card page's decision: declined or cancelled → DENIED; approved → the card saved (SAVECARD=1),
   * then a card verification SAVED, a pre-authorisation HELD, a payment captured → PAID.
   */
  async payByCard(decision: CardPaymentDecision): Promise<ObligationOutcome> {
    if (decision.outcome !== 'approved') {
      return this.deny(decision.outcome === 'declined' ? decision.reason : 'cancelled by the customer');
    }
    const { idn, amountMinor } = this.input;
    const authorised = { acquirer: decision.acquirer, authorisationId: decision.authorisationId };
    this.card = authorised;
    if (decision.saveCard) {
      this.savedCard = await this.askAcquirer(() =>
        saveCard({ idn, merchantMin: this.input.merchantMin, authorisationId: authorised.authorisationId }),
      );
    }
    // A card verification (AMOUNT=0, SAVECARD=1) holds nothing: its authorisation is released.
    if (amountMinor === 0) {
      await this.askAcquirer(() => voidCard({ idn, authorisationId: authorised.authorisationId }));
      this.status = 'SAVED';
      await recordObligationStatus({ idn, status: this.status, at: new Date().toISOString() });
      return this.outcome();
    }
    if (this.input.kind === 'preauth') {
      this.status = 'HELD';
      await recordCardHold({ idn, ...authorised, at: new Date().toISOString() });
      return this.outcome();
    }
    const codes = await this.askAcquirer(() =>
      captureCard({ idn, authorisationId: authorised.authorisationId, amountMinor }),
    );
    return this.settle(amountMinor, codes.stan, codes.bcode, cardSource(authorised));
  }

  // --- a pre-authorisation: finalized (captured) or reversed (voided) ------------------------------

  refuseFinalize(amountMinor: number): void {
    if (this.input.kind !== 'preauth')
      refuse(ObligationRefusal.wrongKind, 'only a pre-authorisation is finalized');
    this.refuseUnlessOpen();
    this.refuseWhileAcquirerBusy();
    if (this.status !== 'HELD' || !this.card) {
      refuse(ObligationRefusal.notHeld, 'the customer has not authorised the hold with a card yet');
    }
    if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) {
      refuse(ObligationRefusal.badField, 'the amount must be positive');
    }
    if (amountMinor > this.input.amountMinor) {
      refuse(ObligationRefusal.amountExceedsHold, 'the amount exceeds the held amount');
    }
  }

  async finalizeHold(amountMinor: number): Promise<ObligationOutcome> {
    const hold = this.card as CardAuthorisation;
    const codes = await this.askAcquirer(() =>
      captureCard({ idn: this.input.idn, authorisationId: hold.authorisationId, amountMinor }),
    );
    return this.settle(amountMinor, codes.stan, codes.bcode, cardSource(hold));
  }

  refuseReverse(): void {
    if (this.input.kind !== 'preauth')
      refuse(ObligationRefusal.wrongKind, 'only a pre-authorisation is reversed');
    this.refuseUnlessOpen();
    this.refuseWhileAcquirerBusy();
  }

  async reverseHold(): Promise<ObligationOutcome> {
    const hold = this.card;
    if (hold) {
      await this.askAcquirer(() => voidCard({ idn: this.input.idn, authorisationId: hold.authorisationId }));
    }
    this.status = 'REVERSED';
    const at = new Date().toISOString();
    await recordObligationStatus({ idn: this.input.idn, status: this.status, at });
    return this.outcome();
  }

  // --- a saved card charged by the merchant (card_charge, GET /card/charge.cgi; decision 0045) ------

  refuseCharge(): void {
    if (this.input.kind !== 'card_charge')
      refuse(ObligationRefusal.wrongKind, 'only a saved-card charge is charged');
    if (this.status === 'EXPIRED' || (this.isOpen() && Date.now() >= this.expiresAtMs)) {
      refuse(ObligationRefusal.expired, 'the charge has expired');
    }
  }

  /** The merchant's request: waits for the charge under way (or a new one) and answers its outcome. */
  async chargeSavedCard(): Promise<ObligationOutcome> {
    if (this.isOpen()) await this.chargeOnce();
    if (this.isOpen() && this.chargeFailure) refuse(this.chargeFailure.type, this.chargeFailure.message);
    return this.outcome();
  }

  /** The attempt under way, or a new one: callers waiting at once share it. */
  chargeOnce(): Promise<void> {
    if (!this.chargeAttempt) {
      this.chargeAttempt = this.attemptCharge().finally(() => {
        this.chargeAttempt = undefined;
      });
    }
    return this.chargeAttempt;
  }

  /** One attempt: authorise the saved card (merchant-initiated), then capture → PAID, or DENIED. */
  private async attemptCharge(): Promise<void> {
    this.acquirerBusy = true;
    this.chargeFailure = undefined;
    const { idn, amountMinor } = this.input;
    try {
      const authorised = await authoriseSavedCard({ idn });
      if (authorised.outcome === 'declined') {
        await this.deny(authorised.reason);
        return;
      }
      const card = { acquirer: authorised.acquirer, authorisationId: authorised.authorisationId };
      this.card = card;
      const codes = await captureCharge({ idn, authorisationId: card.authorisationId, amountMinor });
      await this.settle(amountMinor, codes.stan, codes.bcode, cardSource(card));
    } catch (error) {
      this.chargeFailure = acquirerRefusal(error, {
        type: ObligationRefusal.unavailable,
        message: 'the card acquirer could not be reached; send the same packet again',
      });
    } finally {
      this.acquirerBusy = false;
    }
  }

  // --- a payment taken back by the bank (decision 0063) ----------------------------------------------

  /**
   * The run's first step when it was started for a reversal: PAID by the reversed credit → PENDING,
   * the settlement negated, all in one activity. Answers whether the payment was taken back; when not
   * (the obligation was paid otherwise, or is not paid), the status the read model holds.
   */
  async takeBackPayment(reversal: PaymentReversal): Promise<boolean> {
    const { applied, status } = await recordObligationReversal({
      idn: this.input.idn,
      reversal,
      at: new Date().toISOString(),
    });
    this.status = status;
    if (!applied) return false;
    this.round = reversal.round;
    this.paid = undefined;
    return true;
  }

  /**
   * What the merchant is told when the bank took a payment back: REVERSED, with the PAY_TIME of the
   * payment taken back (runs started with it, under the patch: decision 0063, amended 2026-11-28), then
   * it is unpaid again.
   */
  reversalNotification(): MerchantNotification {
    const payTime = this.input.reversal?.payTime;
    return {
      merchantMin: this.input.merchantMin,
      invoice: this.input.invoice,
      idn: this.input.idn,
      status: 'REVERSED',
      round: this.round - 1,
      ...(payTime && patched(REVERSAL_PAY_TIME_PATCH) ? { payTime } : {}),
    };
  }

  // --- final states ----------------------------------------------------------------------------------

  /** EXPIRED: recorded (a payout's reservation is released by its postings), then any card hold released. */
  async expire(): Promise<void> {
    this.status = 'EXPIRED';
    await this.reserved; // released by the expiry's postings
    await recordObligationStatus({ idn: this.input.idn, status: this.status, at: new Date().toISOString() });
    // An expired hold (or a payment whose capture never completed) is released at the acquirer; a
    // refusal means it holds nothing any more.
    const hold = this.card;
    if (hold) {
      await releaseCard({ idn: this.input.idn, authorisationId: hold.authorisationId }).catch(
        () => undefined,
      );
    }
  }

  /** What the merchant is told of the final state, if anything. */
  notification(): MerchantNotification | undefined {
    const status = notificationStatusOf(this.status);
    if (!status) return undefined;
    const { paid, savedCard } = this;
    return {
      merchantMin: this.input.merchantMin,
      invoice: this.input.invoice,
      idn: this.input.idn,
      status,
      ...(this.round > 0 ? { round: this.round } : {}),
      ...(paid
        ? { payTime: paid.payTime, stan: paid.stan, bcode: paid.bcode, amountMinor: paid.amountMinor }
        : {}),
      ...(savedCard ? { savedCard } : {}),
    };
  }

  // --- shared steps ----------------------------------------------------------------------------------

  /** Moves to PAID before the first await, so a second Update is refused by its validator. */
  private async settle(
    amountMinor: number,
    stan: string,
    bcode: string,
    source: SettlementSource,
  ): Promise<ObligationOutcome> {
    const before = { status: this.status, paid: this.paid };
    this.status = 'PAID';
    this.settling = true;
    const now = new Date();
    const paid = { amountMinor, payTime: formatPayTime(now), stan, bcode };
    this.paid = paid;
    await this.reserved;
    try {
      await recordObligationStatus({
        idn: this.input.idn,
        status: this.status,
        paidAmountMinor: amountMinor,
        payTime: paid.payTime,
        stan,
        bcode,
        source,
        at: now.toISOString(),
        ...(this.round > 0 ? { round: this.round } : {}),
      });
    } catch (error) {
      // The database refuses the payment's data for good (issue 20): not paid, the refusal kept and
      // answered (ERR=BAD_FIELD); the obligation stays open for its next payment.
      const refused = dataRefusalOf(error);
      if (refused === undefined) throw error;
      Object.assign(this, before);
      upsertMemo({ lastRefusal: { at: new Date().toISOString(), reason: refused } });
      log.warn('the database refused a payment of the obligation: not paid', {
        idn: this.input.idn,
        refused,
      });
      return refuse(ObligationRefusal.badField, refused);
    } finally {
      this.settling = false;
    }
    return this.outcome();
  }

  /** The card was declined (or the customer cancelled): DENIED, with the reason kept. */
  private async deny(why: string): Promise<ObligationOutcome> {
    this.status = 'DENIED';
    this.reason = why;
    await recordObligationStatus({
      idn: this.input.idn,
      status: this.status,
      reason: why,
      at: new Date().toISOString(),
    });
    return this.outcome();
  }

  /** Runs a capture or void; its failure fails the Update with a type the API answers (ERR=<type>). */
  private async askAcquirer<T>(run: () => Promise<T>): Promise<T> {
    this.acquirerBusy = true;
    try {
      return await run();
    } catch (error) {
      const refusal = acquirerRefusal(error, {
        type: ObligationRefusal.acquirerUnavailable,
        message: 'the card acquirer did not answer; send the request again',
      });
      return refuse(refusal.type, refusal.message);
    } finally {
      this.acquirerBusy = false;
    }
  }

  private refuseUnlessOpen(): void {
    const refusal = refusalOf(this.status, this.expiresAtMs, Date.now());
    if (refusal) refuse(refusal.type, refusal.message);
  }

  private refuseWhileAcquirerBusy(): void {
    if (this.acquirerBusy) {
      refuse(ObligationRefusal.inProgress, 'the card acquirer is being asked for this obligation');
    }
  }
}
