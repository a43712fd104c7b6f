import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
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
import {
  cardPaymentUpdate,
  changeExpiryUpdate,
  chargeCardUpdate,
  finalizeHoldUpdate,
  type ObligationInput,
  type ObligationOutcome,
  payObligationUpdate,
  reverseHoldUpdate,
  type SavedCardView,
  type SettlementSource,
} from '../../domain/collect/processes.ts';
import { formatPayTime } from '../../domain/epay-time.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { notifyMerchant } from './merchant-notifications.ts';

const { recordObligationStatus, recordObligationExpiry, reservePayout } = proxyActivities<CollectActivities>({
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

const refuse = (type: string, message: string): never => {
  throw ApplicationFailure.nonRetryable(message, type);
};

/**
 * One obligation, hold, payout or saved-card charge, keyed by its IDN: open until paid, collected,
 * finalized, reversed or (a card verification) saved, expired by a timer at its expiry; every final
 * state is recorded and notified to the merchant once.
 */
export async function collectObligation(input: ObligationInput): Promise<ObligationStatus> {
  // A pre-authorisation holds nothing until the customer's card is authorised on the card page (HELD).
  let status: ObligationStatus = 'PENDING';
  let expiresAtMs = Date.parse(input.expiresAt);
  let paid: { amountMinor: number; payTime: string; stan: string; bcode: string } | undefined;
  /** DENIED by the card: the decline reason. */
  let reason: string | undefined;
  /** SAVECARD=1: the card saved once the acquirer approved it (told to the merchant). */
  let savedCard: SavedCardView | undefined;

  const outcome = (): ObligationOutcome => ({
    status,
    amountMinor: input.amountMinor,
    paidAmountMinor: paid?.amountMinor,
    payTime: paid?.payTime,
    stan: paid?.stan,
    bcode: paid?.bcode,
    expiresAt: new Date(expiresAtMs).toISOString(),
    reason,
    savedCard,
  });

  // A cash payout reserves its money (ledger: merchant → payouts owed) before it can be collected.
  // (patched: a payout started before the ledger has no reservation, and its history no such activity.)
  const reserved =
    input.kind === 'payout_office' && patched('collect-ledger-payout-reservation')
      ? reservePayout({ idn: input.idn, at: new Date().toISOString() })
      : undefined;

  const refuseUnlessOpen = () => {
    const refusal = refusalOf(status, expiresAtMs, Date.now());
    if (refusal) refuse(refusal.type, refusal.message);
  };

  /** Moves to PAID before the first await, so a second Update is refused by its validator. */
  async function settle(
    amountMinor: number,
    stan: string,
    bcode: string,
    source: SettlementSource,
  ): Promise<ObligationOutcome> {
    status = 'PAID';
    const now = new Date();
    paid = { amountMinor, payTime: formatPayTime(now), stan, bcode };
    await reserved;
    await recordObligationStatus({
      idn: input.idn,
      status,
      paidAmountMinor: amountMinor,
      payTime: paid.payTime,
      stan,
      bcode,
      source,
      at: now.toISOString(),
    });
    return outcome();
  }

  /** The card was declined (or the customer cancelled): DENIED, with the reason kept. */
  async function deny(why: string): Promise<ObligationOutcome> {
    status = 'DENIED';
    reason = why;
    await recordObligationStatus({ idn: input.idn, status, reason: why, at: new Date().toISOString() });
    return outcome();
  }

  setHandler(
    payObligationUpdate,
    ({ stan, bcode, source }) => {
      // A payout is collected with STAN and BCODE 000000, whatever the office says.
      if (input.kind === 'payout_office') return settle(input.amountMinor, PAYOUT_STAN, PAYOUT_BCODE, source);
      return settle(input.amountMinor, stan, bcode, source);
    },
    {
      validator: ({ source }) => {
        if (input.kind !== 'payout_office' && !officePayableKinds.includes(input.kind)) {
          refuse(ObligationRefusal.wrongKind, `a ${input.kind} obligation is not paid at an office`);
        }
        if (!source || !settlementChannels[input.kind].includes(source.channel)) {
          refuse(ObligationRefusal.wrongKind, `a ${input.kind} is not settled through ${source?.channel}`);
        }
        refuseUnlessOpen();
      },
    },
  );

  // --- the card (hosted card page, pre-authorisation): authorised, captured or voided at the acquirer --

  /** The acquirer's authorisation of the customer's card, once the card page has one. */
  let card: { acquirer: string; authorisationId: string } | undefined;
  /** A capture or void is under way: other card operations wait, and so does the expiry. */
  let acquirerBusy = false;
  const cardSource = (authorised: { acquirer: string; authorisationId: string }) => ({
    channel: 'card' as const,
    acquirer: authorised.acquirer,
    authorisationId: authorised.authorisationId,
  });
  /** Runs a capture or void; its failure fails the Update with a type the API answers (ERR=<type>). */
  async function askAcquirer<T>(run: () => Promise<T>): Promise<T> {
    acquirerBusy = true;
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const cause = error.cause;
      if (cause instanceof ApplicationFailure && cause.nonRetryable && cause.type)
        refuse(cause.type, cause.message);
      return refuse(
        ObligationRefusal.acquirerUnavailable,
        'the card acquirer did not answer; send the request again',
      );
    } finally {
      acquirerBusy = false;
    }
  }
  const refuseWhileAcquirerBusy = () => {
    if (acquirerBusy)
      refuse(ObligationRefusal.inProgress, 'the card acquirer is being asked for this obligation');
  };

  setHandler(
    finalizeHoldUpdate,
    async ({ amountMinor }) => {
      const hold = card as NonNullable<typeof card>;
      const codes = await askAcquirer(() =>
        captureCard({ idn: input.idn, authorisationId: hold.authorisationId, amountMinor }),
      );
      return settle(amountMinor, codes.stan, codes.bcode, cardSource(hold));
    },
    {
      validator: ({ amountMinor }) => {
        if (input.kind !== 'preauth')
          refuse(ObligationRefusal.wrongKind, 'only a pre-authorisation is finalized');
        refuseUnlessOpen();
        refuseWhileAcquirerBusy();
        if (status !== 'HELD' || !card) {
          refuse(ObligationRefusal.notHeld, 'the customer has not authorised the hold with a card yet');
        }
        if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) {
          refuse(ObligationRefusal.badField, 'the amount must be positive');
        }
        if (amountMinor > input.amountMinor) {
          refuse(ObligationRefusal.amountExceedsHold, 'the amount exceeds the held amount');
        }
      },
    },
  );

  setHandler(
    reverseHoldUpdate,
    async () => {
      const hold = card;
      if (hold) await askAcquirer(() => voidCard({ idn: input.idn, authorisationId: hold.authorisationId }));
      status = 'REVERSED';
      const at = new Date().toISOString();
      await recordObligationStatus({ idn: input.idn, status, at });
      return outcome();
    },
    {
      validator: () => {
        if (input.kind !== 'preauth')
          refuse(ObligationRefusal.wrongKind, 'only a pre-authorisation is reversed');
        refuseUnlessOpen();
        refuseWhileAcquirerBusy();
      },
    },
  );

  setHandler(
    changeExpiryUpdate,
    async ({ expiresAt }) => {
      expiresAtMs = Date.parse(expiresAt);
      await recordObligationExpiry({ idn: input.idn, expiresAt, at: new Date().toISOString() });
      return outcome();
    },
    {
      validator: ({ expiresAt }) => {
        refuseUnlessOpen();
        if (!(Date.parse(expiresAt) > Date.now()))
          refuse(ObligationRefusal.badField, 'the new expiry has passed');
      },
    },
  );

  // The hosted card page (api/collect/card-page): the card is authorised, declined or the customer cancels.
  setHandler(
    cardPaymentUpdate,
    async (decision) => {
      if (decision.outcome !== 'approved') {
        return deny(decision.outcome === 'declined' ? decision.reason : 'cancelled by the customer');
      }
      const authorised = { acquirer: decision.acquirer, authorisationId: decision.authorisationId };
      card = authorised;
      if (decision.saveCard) {
        savedCard = await askAcquirer(() =>
          saveCard({
            idn: input.idn,
            merchantMin: input.merchantMin,
            authorisationId: authorised.authorisationId,
          }),
        );
      }
      // A card verification (AMOUNT=0, SAVECARD=1) holds nothing: its authorisation is released.
      if (input.amountMinor === 0) {
        await askAcquirer(() => voidCard({ idn: input.idn, authorisationId: authorised.authorisationId }));
        status = 'SAVED';
        await recordObligationStatus({ idn: input.idn, status, at: new Date().toISOString() });
        return outcome();
      }
      if (input.kind === 'preauth') {
        status = 'HELD';
        await recordCardHold({ idn: input.idn, ...authorised, at: new Date().toISOString() });
        return outcome();
      }
      const codes = await askAcquirer(() =>
        captureCard({
          idn: input.idn,
          authorisationId: authorised.authorisationId,
          amountMinor: input.amountMinor,
        }),
      );
      return settle(input.amountMinor, codes.stan, codes.bcode, cardSource(authorised));
    },
    {
      validator: (decision) => {
        if (input.kind !== 'online_payment' && input.kind !== 'preauth') {
          refuse(ObligationRefusal.wrongKind, 'only an online payment or a hold is paid on the card page');
        }
        refuseUnlessOpen();
        refuseWhileAcquirerBusy();
        if (card)
          refuse(ObligationRefusal.alreadyFinal, 'a card has been authorised for this obligation already');
        if (decision.outcome === 'approved' && decision.amountMinor !== input.amountMinor) {
          refuse(ObligationRefusal.badField, 'the authorised amount is not the amount of the obligation');
        }
      },
    },
  );

  // --- a saved card charged by the merchant (card_charge, GET /card/charge.cgi; decision 0045) ------

  /** Why the last charge attempt left the obligation open (the acquirer unreachable, or refusing). */
  let chargeFailure: { type: string; message: string } | undefined;
  /** One attempt: authorise the saved card (merchant-initiated), then capture → PAID, or DENIED. */
  async function chargeSavedCard(): Promise<void> {
    acquirerBusy = true;
    chargeFailure = undefined;
    try {
      const authorised = await authoriseSavedCard({ idn: input.idn });
      if (authorised.outcome === 'declined') {
        await deny(authorised.reason);
        return;
      }
      card = { acquirer: authorised.acquirer, authorisationId: authorised.authorisationId };
      const codes = await captureCharge({
        idn: input.idn,
        authorisationId: authorised.authorisationId,
        amountMinor: input.amountMinor,
      });
      await settle(input.amountMinor, codes.stan, codes.bcode, cardSource(card));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const cause = error.cause;
      chargeFailure =
        cause instanceof ApplicationFailure && cause.nonRetryable && cause.type
          ? { type: cause.type, message: cause.message }
          : {
              type: ObligationRefusal.unavailable,
              message: 'the card acquirer could not be reached; send the same packet again',
            };
    } finally {
      acquirerBusy = false;
    }
  }
  let chargeAttempt: Promise<void> | undefined;
  /** The attempt under way, or a new one: callers waiting at once share it. */
  const chargeOnce = () =>
    (chargeAttempt ??= chargeSavedCard().finally(() => {
      chargeAttempt = undefined;
    }));

  setHandler(
    chargeCardUpdate,
    async () => {
      if (isOpen(status)) await chargeOnce();
      if (isOpen(status) && chargeFailure) refuse(chargeFailure.type, chargeFailure.message);
      return outcome();
    },
    {
      validator: () => {
        if (input.kind !== 'card_charge')
          refuse(ObligationRefusal.wrongKind, 'only a saved-card charge is charged');
        if (status === 'EXPIRED' || (isOpen(status) && Date.now() >= expiresAtMs)) {
          refuse(ObligationRefusal.expired, 'the charge has expired');
        }
      },
    },
  );
  // The charge starts at once; the merchant's request waits for it through chargeCardUpdate.
  if (input.kind === 'card_charge') void chargeOnce();

  // The gateway is the provider: a send to a provider account is credited at once.
  if (input.kind === 'payout_provider') {
    await settle(input.amountMinor, PAYOUT_STAN, PAYOUT_BCODE, {
      channel: 'provider_account',
      account: input.providerAccount ?? '',
    });
  }

  while (isOpen(status)) {
    const deadline = expiresAtMs;
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) break;
    // Wakes on a final state, a moved expiry (re-armed with the new one) or the deadline.
    await condition(() => !isOpen(status) || expiresAtMs !== deadline, remainingMs);
  }
  // A capture or void under way decides the outcome before the expiry does.
  await condition(() => !acquirerBusy);
  if (isOpen(status)) {
    status = 'EXPIRED';
    await reserved; // released by the expiry's postings
    await recordObligationStatus({ idn: input.idn, status, at: new Date().toISOString() });
    // An expired hold (or a payment whose capture never completed) is released at the acquirer; a
    // refusal means it holds nothing any more.
    const hold = card;
    if (hold)
      await releaseCard({ idn: input.idn, authorisationId: hold.authorisationId }).catch(() => undefined);
  }
  // A handler still writing the read model finishes before the merchant hears of it.
  await condition(allHandlersFinished);
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);

  const notified = notificationStatusOf(status);
  if (notified) {
    await notifyMerchant({
      merchantMin: input.merchantMin,
      invoice: input.invoice,
      idn: input.idn,
      status: notified,
      ...(paid
        ? { payTime: paid.payTime, stan: paid.stan, bcode: paid.bcode, amountMinor: paid.amountMinor }
        : {}),
      ...(savedCard ? { savedCard } : {}),
    });
  }
  return status;
}
