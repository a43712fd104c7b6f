import { ChangeExpiryPayload, parsePayload } from '../../domain/collect/payloads.ts';
import { changeExpiryUpdate, type ObligationOutcome } from '../../domain/collect/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { authenticate, findOwnObligation, updateObligation } from './obligation.ts';
import { checkNewExpiry } from './registration.ts';

/**
 * Moves the expiry of an open obligation, hold or payout of the merchant (ChangeExpiryPayload): the
 * workflow re-arms its timer with the new time; a closed obligation cannot be changed.
 */
export async function changeExpiry(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<{ idn: string; status: ObligationOutcome['status']; expiresAt: Date }> {
  const { merchant, packet } = await authenticate(deps, params);
  const change = parsePayload(ChangeExpiryPayload, packet);
  const expiresAt = checkNewExpiry(deps, change.expTime);
  const row = await findOwnObligation(deps, merchant.min, change.idn);
  const outcome = await updateObligation(deps, row, (handle) =>
    handle.executeUpdate(changeExpiryUpdate, { args: [{ expiresAt: expiresAt.toISOString() }] }),
  );
  return { idn: row.idn, status: outcome.status, expiresAt: new Date(outcome.expiresAt) };
}
