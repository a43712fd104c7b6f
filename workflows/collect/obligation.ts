import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CollectActivities } from '../../activities/collect/index.ts';
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
  finalizeHoldUpdate,
  type ObligationInput,
  type ObligationOutcome,
  payObligationUpdate,
  reverseHoldUpdate,
} from '../../domain/collect/processes.ts';
import { formatPayTime } from '../../domain/collect/time.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { notifyMerchant } from './merchant-notifications.ts';

const { recordObligationStatus, recordObligationExpiry } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const refuse = (type: string, message: string): never => {
  throw ApplicationFailure.nonRetryable(message, type);
};

/**
 * One obligation, hold or payout, keyed by its IDN: open until paid, collected, finalized or reversed,
 * expired by a timer at its expiry; every final state is recorded and notified to the merchant once.
 */
export async function collectObligation(input: ObligationInput): Promise<ObligationStatus> {
  let status: ObligationStatus = input.kind === 'preauth' ? 'HELD' : 'PENDING';
  let expiresAtMs = Date.parse(input.expiresAt);
  let paid: { amountMinor: number; payTime: string; stan: string; bcode: string } | undefined;

  const outcome = (): ObligationOutcome => ({
    status,
    amountMinor: input.amountMinor,
    paidAmountMinor: paid?.amountMinor,
    payTime: paid?.payTime,
    stan: paid?.stan,
    bcode: paid?.bcode,
    expiresAt: new Date(expiresAtMs).toISOString(),
  });

  const refuseUnlessOpen = () => {
    const refusal = refusalOf(status, expiresAtMs, Date.now());
    if (refusal) refuse(refusal.type, refusal.message);
  };

  /** Moves to PAID before the first await, so a second Update is refused by its validator. */
  async function settle(amountMinor: number, stan: string, bcode: string): Promise<ObligationOutcome> {
    status = 'PAID';
    const now = new Date();
    paid = { amountMinor, payTime: formatPayTime(now), stan, bcode };
    await recordObligationStatus({
      idn: input.idn,
      status,
      paidAmountMinor: amountMinor,
      payTime: paid.payTime,
      stan,
      bcode,
      at: now.toISOString(),
    });
    return outcome();
  }

  setHandler(
    payObligationUpdate,
    ({ stan, bcode }) => {
      // A payout is collected with STAN and BCODE 000000, whatever the office says.
      if (input.kind === 'payout_office') return settle(input.amountMinor, PAYOUT_STAN, PAYOUT_BCODE);
      return settle(input.amountMinor, stan, bcode);
    },
    {
      validator: (_payment) => {
        if (input.kind !== 'payout_office' && !officePayableKinds.includes(input.kind)) {
          refuse(ObligationRefusal.wrongKind, `a ${input.kind} obligation is not paid at an office`);
        }
        refuseUnlessOpen();
      },
    },
  );

  setHandler(finalizeHoldUpdate, ({ amountMinor }) => settle(amountMinor, randomCode(), randomCode()), {
    validator: ({ amountMinor }) => {
      if (input.kind !== 'preauth')
        refuse(ObligationRefusal.wrongKind, 'only a pre-authorisation is finalized');
      refuseUnlessOpen();
      if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) {
        refuse(ObligationRefusal.badField, 'the amount must be positive');
      }
      if (amountMinor > input.amountMinor) {
        refuse(ObligationRefusal.amountExceedsHold, 'the amount exceeds the held amount');
      }
    },
  });

  setHandler(
    reverseHoldUpdate,
    async () => {
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

  // The hosted card page (api/collect/card-page): the customer pays, is declined or cancels.
  setHandler(
    cardPaymentUpdate,
    async (decision) => {
      if (decision.outcome === 'approved') return settle(input.amountMinor, decision.stan, decision.bcode);
      status = 'DENIED';
      await recordObligationStatus({ idn: input.idn, status, at: new Date().toISOString() });
      return outcome();
    },
    {
      validator: (_decision) => {
        if (input.kind !== 'online_payment') {
          refuse(ObligationRefusal.wrongKind, 'only an online payment is paid on the card page');
        }
        refuseUnlessOpen();
      },
    },
  );

  // The gateway is the provider: a send to a provider account is credited at once.
  if (input.kind === 'payout_provider') await settle(input.amountMinor, PAYOUT_STAN, PAYOUT_BCODE);

  while (isOpen(status)) {
    const deadline = expiresAtMs;
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) break;
    // Wakes on a final state, a moved expiry (re-armed with the new one) or the deadline.
    await condition(() => !isOpen(status) || expiresAtMs !== deadline, remainingMs);
  }
  if (isOpen(status)) {
    status = 'EXPIRED';
    await recordObligationStatus({ idn: input.idn, status, at: new Date().toISOString() });
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
    });
  }
  return status;
}

/** STAN / BCODE of a card finalization: six digits (deterministic: the workflow's seeded random). */
function randomCode(): string {
  return String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0');
}
