import { createRoute } from '@hono/zod-openapi';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { CollectProtocolError } from '../../domain/collect/errors.ts';
import {
  PreauthFinalizePayload,
  PreauthRegisterPayload,
  PreauthReversePayload,
  parsePayload,
  preauthPhaseOf,
} from '../../domain/collect/payloads.ts';
import { finalizeHoldUpdate, reverseHoldUpdate } from '../../domain/collect/processes.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  authenticate,
  authenticationErrors,
  encodedFormDocumentation,
  findObligation,
  findOwnObligation,
  type Obligation,
  protocolHandler,
  requestParams,
  textAnswer,
  textResponses,
  updateObligation,
} from './protocol.ts';
import { registerObligation, registrationAnswer } from './registration.ts';

/**
 * POST /v3main/: pre-authorisation in three phases on one endpoint, chosen by the packet's `PHASE`:
 * REGISTER registers the hold (PENDING: nothing is held until the customer's card authorises AMOUNT on
 * the card page, PAGE=credit_preauth with the same packet → HELD); FINALIZE captures at most the held
 * amount at the card acquirer (PAID, the acquirer's STAN and BCODE); REVERSE voids the hold (REVERSED,
 * notified to the merchant as DENIED). A hold neither finalized nor reversed by its expiry is EXPIRED
 * and voided. Repeating a FINALIZE with the same amount or a REVERSE answers the same outcome again.
 * Decision 0032.
 */

function settledAnswer(c: Parameters<typeof textAnswer>[0], row: Obligation) {
  return textAnswer(c, {
    IDN: row.idn,
    STATUS: row.status,
    AMOUNT: row.paidAmountMinor !== null ? formatAmount(row.paidAmountMinor) : undefined,
    PAY_TIME: row.payTime ?? undefined,
    STAN: row.stan ?? undefined,
    BCODE: row.bcode ?? undefined,
  });
}

async function ownHold(deps: UseCaseDeps, min: string, idn: string): Promise<Obligation> {
  const row = await findOwnObligation(deps, min, idn);
  if (row.kind !== 'preauth') {
    throw new CollectProtocolError('WRONG_KIND', `${idn} is not a pre-authorisation`, 'IDN');
  }
  return row;
}

/** Runs the phase; when it was already done with the same effect, answers that instead of an error. */
async function idempotently(
  deps: UseCaseDeps,
  row: Obligation,
  done: (row: Obligation) => boolean,
  run: () => Promise<unknown>,
): Promise<Obligation> {
  if (done(row)) return row;
  try {
    await run();
  } catch (error) {
    if (!(error instanceof CollectProtocolError)) throw error;
    const latest = await findObligation(deps, row.idn);
    if (latest && done(latest)) return latest;
    throw error;
  }
  return (await findObligation(deps, row.idn)) ?? row;
}

export const v3mainPreauthOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/v3main/',
      tags: ['Pre-authorisation'],
      summary: 'Pre-authorisation: register, finalize or reverse (PreauthRegister/Finalize/ReversePayload)',
      description:
        "ENCODED and CHECKSUM as form fields (or in the query). The packet's `PHASE` chooses the phase:\n\n" +
        '- `REGISTER`: `MIN`, `INVOICE`, `AMOUNT`, optional `CURRENCY`, `DESCR`, `EXP_TIME` (default ' +
        'COLLECT_PREAUTH_EXPIRY), `URL_OK`, `URL_CANCEL`. Answers `IDN`, `STATUS=PENDING`, `EXP_TIME`: nothing is ' +
        'held until the customer authorises the hold with a card on the card page (`POST /` with ' +
        '`PAGE=credit_preauth` and the same ENCODED/CHECKSUM) → HELD.\n' +
        '- `FINALIZE`: `MIN`, `IDN`, `AMOUNT` (at most the held amount, else `AMOUNT_EXCEEDS_HOLD`; `NOT_HELD` before ' +
        'the card authorised it). The card acquirer captures it. Answers `IDN`, `STATUS=PAID`, `AMOUNT`, `PAY_TIME`, ' +
        "`STAN`, `BCODE` (the acquirer's).\n" +
        '- `REVERSE`: `MIN`, `IDN`. The acquirer voids the hold. Answers `IDN`, `STATUS=REVERSED` (the merchant is ' +
        'notified `DENIED`).\n\n' +
        'A hold neither finalized nor reversed by its expiry becomes EXPIRED (notified) and is voided.',
      request: {
        body: {
          content: {
            'application/x-www-form-urlencoded': { schema: encodedFormDocumentation },
          },
        },
      },
      responses: textResponses('Done', 'IDN=1234567890\nSTATUS=PENDING\nEXP_TIME=01.08.2027 23:59:59\n', [
        ...authenticationErrors,
        'DUPLICATE_INVOICE',
        'NOT_FOUND',
        'WRONG_KIND',
        'EXPIRED',
        'ALREADY_PAID',
        'ALREADY_FINAL',
        'AMOUNT_EXCEEDS_HOLD',
        'NOT_HELD',
        'IN_PROGRESS',
        'ACQUIRER_REFUSED',
        'ACQUIRER_UNAVAILABLE',
      ]),
    }),
  handler: () =>
    protocolHandler(async (c) => {
      const deps = c.get('deps');
      const { merchant, packet } = await authenticate(deps, await requestParams(c));
      switch (preauthPhaseOf(packet)) {
        case 'REGISTER': {
          const hold = parsePayload(PreauthRegisterPayload, { ...packet, PHASE: 'REGISTER' });
          const registered = await registerObligation(deps, {
            merchant,
            packet,
            kind: 'preauth',
            terms: hold,
            defaultExpiryMs: deps.config.COLLECT_PREAUTH_EXPIRY,
            details: {},
          });
          return registrationAnswer(c, registered, {
            AMOUNT: formatAmount(registered.obligation.amountMinor),
          });
        }
        case 'FINALIZE': {
          const finalize = parsePayload(PreauthFinalizePayload, { ...packet, PHASE: 'FINALIZE' });
          const row = await ownHold(deps, merchant.min, finalize.idn);
          const settled = await idempotently(
            deps,
            row,
            (r) => r.status === 'PAID' && r.paidAmountMinor === finalize.amountMinor,
            () =>
              updateObligation(
                deps,
                row,
                (handle) =>
                  handle.executeUpdate(finalizeHoldUpdate, { args: [{ amountMinor: finalize.amountMinor }] }),
                'AMOUNT',
              ),
          );
          return settledAnswer(c, settled);
        }
        case 'REVERSE': {
          const reverse = parsePayload(PreauthReversePayload, { ...packet, PHASE: 'REVERSE' });
          const row = await ownHold(deps, merchant.min, reverse.idn);
          const reversed = await idempotently(
            deps,
            row,
            (r) => r.status === 'REVERSED',
            () => updateObligation(deps, row, (handle) => handle.executeUpdate(reverseHoldUpdate)),
          );
          return textAnswer(c, {
            IDN: reversed.idn,
            STATUS: reversed.status,
            EXP_TIME: formatExpTime(reversed.expiresAt),
          });
        }
      }
    }),
});
