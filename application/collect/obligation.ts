import { type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { and, eq } from 'drizzle-orm';
import { loadMerchant, type Merchant } from '../../credentials/collect/merchants.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { verifyChecksum } from '../../domain/collect/checksum.ts';
import {
  badField,
  type CollectErrorCode,
  CollectProtocolError,
  collectErrorCodes,
  missingField,
} from '../../domain/collect/errors.ts';
import { ObligationRefusal, refusalOf } from '../../domain/collect/obligation.ts';
import { decodePacket, type Packet } from '../../domain/collect/packet.ts';
import { MIN_TEXT } from '../../domain/collect/payloads.ts';
import { obligationWorkflowId } from '../../domain/collect/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * What every ENCODED/CHECKSUM use case shares (decision 0046): authenticating the packet, reading the
 * merchant's obligations and running an Update on an obligation's workflow, whose refusals become the
 * protocol's typed errors (`CollectProtocolError`; the API answers them as `ERR=` text).
 */

export type Obligation = typeof collectObligations.$inferSelect;

export interface AuthenticatedPacket {
  merchant: Merchant;
  packet: Packet;
}

/**
 * ENCODED and CHECKSUM present → ENCODED decodes → MIN names a merchant → CHECKSUM is the HMAC of
 * ENCODED with that merchant's secret (constant-time). Each failure is its own error code.
 */
export async function authenticate(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<AuthenticatedPacket> {
  const encoded = params.ENCODED;
  if (!encoded) throw missingField('ENCODED');
  const checksum = params.CHECKSUM;
  if (!checksum) throw missingField('CHECKSUM');
  const packet = decodePacket(encoded);
  const min = packet.MIN;
  if (!min) throw missingField('MIN');
  if (!MIN_TEXT.test(min)) throw badField('MIN', 'must be D followed by 9 digits');
  const merchant = await loadMerchant(deps.db, deps.config, min);
  if (!merchant) throw new CollectProtocolError('UNKNOWN_MERCHANT', `no merchant has MIN ${min}`);
  if (!verifyChecksum(encoded, checksum, merchant.secret)) {
    throw new CollectProtocolError(
      'BAD_CHECKSUM',
      'CHECKSUM is not the HMAC-SHA1 of ENCODED with the merchant secret',
    );
  }
  return { merchant, packet };
}

/** The merchant's own obligation by IDN; another merchant's is NOT_FOUND, never its data. */
export async function findOwnObligation(deps: UseCaseDeps, min: string, idn: string): Promise<Obligation> {
  const [row] = await deps.db
    .select()
    .from(collectObligations)
    .where(and(eq(collectObligations.idn, idn), eq(collectObligations.merchantMin, min)));
  if (!row) throw new CollectProtocolError('NOT_FOUND', `no obligation ${idn}`, 'IDN');
  return row;
}

export async function findObligation(
  deps: Pick<UseCaseDeps, 'db'>,
  { idn }: { idn: string },
): Promise<Obligation | undefined> {
  const [row] = await deps.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
  return row;
}

/**
 * Runs an Update (`run`) on the obligation's workflow handle; a refusal by its validator becomes the protocol error of
 * the same name (`badFieldName` names the field of a BAD_FIELD refusal).
 */
export async function updateObligation<Ret>(
  deps: UseCaseDeps,
  row: Obligation,
  run: (handle: WorkflowHandle) => Promise<Ret>,
  badFieldName = 'EXP_TIME',
): Promise<Ret> {
  try {
    return await run(deps.temporal.workflow.getHandle(obligationWorkflowId(row.kind, row.idn)));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const type = error.cause.type ?? '';
      if (type === ObligationRefusal.badField) throw badField(badFieldName, error.cause.message);
      if (type in collectErrorCodes) {
        throw new CollectProtocolError(
          type as CollectErrorCode,
          error.cause.message,
          type === ObligationRefusal.amountExceedsHold ? 'AMOUNT' : undefined,
        );
      }
    }
    if (error instanceof WorkflowNotFoundError) {
      // The workflow has just closed (settled or expired meanwhile): the read model says which.
      const now = (await findObligation(deps, { idn: row.idn })) ?? row;
      const refusal = refusalOf(now.status, now.expiresAt.getTime(), Date.now());
      if (refusal) throw new CollectProtocolError(refusal.type as CollectErrorCode, refusal.message);
    }
    throw error;
  }
}
