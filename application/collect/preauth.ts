import { CollectProtocolError } from '../../domain/collect/errors.ts';
import {
  PreauthFinalizePayload,
  PreauthRegisterPayload,
  PreauthReversePayload,
  parsePayload,
  preauthPhaseOf,
} from '../../domain/collect/payloads.ts';
import { finalizeHoldUpdate, reverseHoldUpdate } from '../../domain/collect/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import {
  authenticate,
  findObligation,
  findOwnObligation,
  type Obligation,
  updateObligation,
} from './obligation.ts';
import { type Registered, registerObligation } from './registration.ts';

/**
 * Pre-authorisation in three phases, chosen by the packet's `PHASE` (decision 0032): REGISTER registers
 * the hold (PENDING until the card page's card authorises it), FINALIZE captures at most the held amount,
 * REVERSE voids the hold. Repeating a FINALIZE with the same amount or a REVERSE answers the same
 * outcome again.
 */

export type PreauthOutcome =
  | { phase: 'REGISTER'; registered: Registered }
  | { phase: 'FINALIZE' | 'REVERSE'; obligation: Obligation };

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
    const latest = await findObligation(deps, { idn: row.idn });
    if (latest && done(latest)) return latest;
    throw error;
  }
  return (await findObligation(deps, { idn: row.idn })) ?? row;
}

/** One phase of a pre-authorisation, from an ENCODED/CHECKSUM packet. */
export async function preauthorise(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<PreauthOutcome> {
  const { merchant, packet } = await authenticate(deps, params);
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
      return { phase: 'REGISTER', registered };
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
      return { phase: 'FINALIZE', obligation: settled };
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
      return { phase: 'REVERSE', obligation: reversed };
    }
  }
}
