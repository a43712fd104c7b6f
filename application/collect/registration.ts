import { randomInt } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Merchant } from '../../credentials/collect/merchants.ts';
import { sealRecipientId } from '../../credentials/collect/recipient-ids.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import { packetDigest } from '../../domain/collect/checksum.ts';
import { badField, CollectProtocolError } from '../../domain/collect/errors.ts';
import { isOpen, type ObligationKind } from '../../domain/collect/obligation.ts';
import { canonicalPacket, type Packet } from '../../domain/collect/packet.ts';
import { type ObligationTerms, parsePayload } from '../../domain/collect/payloads.ts';
import { obligationInputOf, obligationWorkflowId } from '../../domain/collect/processes.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { Config } from '../../platform/config.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { authenticate, type Obligation } from './obligation.ts';

/**
 * Registering obligations (office bills, deposit slips, bank transfers, payouts, pre-authorisations,
 * card-page payments): once per merchant and INVOICE, with its `collect-<idn>` / `payout-<idn>`
 * workflow. The API answers the registered obligation as `IDN`, `STATUS`, `EXP_TIME`.
 */

/** The expiry of a registration: EXP_TIME when given (in the future, within COLLECT_MAX_EXPIRY), else the default. */
export function resolveExpiry(
  deps: UseCaseDeps,
  expTime: Date | undefined,
  defaultMs: number,
  now = new Date(),
): Date {
  if (!expTime) return new Date(now.getTime() + defaultMs);
  return checkNewExpiry(deps, expTime, now);
}

export function checkNewExpiry(deps: UseCaseDeps, expTime: Date, now = new Date()): Date {
  if (expTime.getTime() <= now.getTime()) throw badField('EXP_TIME', 'has passed');
  if (expTime.getTime() > now.getTime() + deps.config.COLLECT_MAX_EXPIRY) {
    throw badField('EXP_TIME', 'is further away than the gateway allows');
  }
  return expTime;
}

/** A 10-digit IDN whose first digit is 1-8: 9 is left to billing prefixes, 0 to nobody (leading zeros get lost). */
export const generateIdn = () => `${randomInt(1, 9)}${String(randomInt(0, 1_000_000_000)).padStart(9, '0')}`;

export interface Registration {
  merchant: Merchant;
  packet: Packet;
  kind: ObligationKind;
  /** What every registering payload carries: INVOICE, AMOUNT, CURRENCY, DESCR, EXP_TIME. */
  terms: ObligationTerms;
  defaultExpiryMs: number;
  /** Fields of the operation's own (recipient, IBAN, payer...), kept in the read model. */
  details: Record<string, string>;
}

export interface Registered {
  obligation: Obligation;
  /** The same packet had been registered before: this is its obligation, not a new one. */
  replayed: boolean;
}

async function findByInvoice(
  deps: UseCaseDeps,
  min: string,
  invoice: string,
): Promise<Obligation | undefined> {
  const [row] = await deps.db
    .select()
    .from(collectObligations)
    .where(and(eq(collectObligations.merchantMin, min), eq(collectObligations.invoice, invoice)));
  return row;
}

function replayOf(existing: Obligation, digest: string): Registered {
  if (existing.payloadDigest !== digest) {
    throw new CollectProtocolError(
      'DUPLICATE_INVOICE',
      `INVOICE ${existing.invoice} is registered already (IDN ${existing.idn}) with different data`,
      'INVOICE',
    );
  }
  return { obligation: existing, replayed: true };
}

/**
 * Registers an obligation once per merchant and INVOICE: the read-model row is written first (its unique
 * index is the idempotency key), then the `collect-<idn>`/`payout-<idn>` workflow is started. The same
 * packet again answers the same obligation; another packet with the same INVOICE is DUPLICATE_INVOICE.
 */
export async function registerObligation(deps: UseCaseDeps, registration: Registration): Promise<Registered> {
  const { merchant } = registration;
  const { invoice } = registration.terms;
  const digest = packetDigest(canonicalPacket(registration.packet));
  const earlier = await findByInvoice(deps, merchant.min, invoice);
  if (earlier) {
    const replay = replayOf(earlier, digest);
    await ensureWorkflow(deps, replay.obligation);
    return replay;
  }
  const expiresAt = resolveExpiry(deps, registration.terms.expTime, registration.defaultExpiryMs);
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = await deps.db
      .insert(collectObligations)
      .values({
        idn: generateIdn(),
        merchantMin: merchant.min,
        invoice,
        kind: registration.kind,
        // A pre-authorisation is HELD only once the card page's card is authorised (decision 0032).
        status: 'PENDING',
        amountMinor: registration.terms.amountMinor,
        currency: registration.terms.currency,
        description: registration.terms.descr ?? null,
        payloadDigest: digest,
        details: sealRecipientId(
          collectSecretKey(deps.config),
          { merchantMin: merchant.min, invoice },
          registration.details,
        ),
        expiresAt,
      })
      .onConflictDoNothing()
      .returning();
    if (row) {
      // A replay of the same packet arriving meanwhile may have started it already (ensureWorkflow): the
      // row has its workflow then, and must stay.
      try {
        await startWorkflow(deps, row);
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
          // Without its workflow the obligation could never expire: take it back so a retry starts afresh.
          await deps.db.delete(collectObligations).where(eq(collectObligations.idn, row.idn));
          throw error;
        }
      }
      return { obligation: row, replayed: false };
    }
    // Either the same INVOICE won a race, or the random IDN was taken: the first is a replay or a conflict.
    const raced = await findByInvoice(deps, merchant.min, invoice);
    if (raced) return replayOf(raced, digest);
  }
  throw new Error('could not allocate a free IDN');
}

/** Starts the obligation's `collect-<idn>` / `payout-<idn>` workflow from its read-model row. */
export async function startWorkflow(deps: UseCaseDeps, row: Obligation): Promise<void> {
  await deps.temporal.workflow.start('collectObligation', {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowId: obligationWorkflowId(row.kind, row.idn),
    args: [obligationInputOf(row)],
    typedSearchAttributes: [
      { key: PlatformService, value: 'collect' },
      { key: OwnerId, value: row.merchantMin },
      { key: BusinessStatus, value: row.status },
    ],
    staticSummary: `${row.kind.replace('_', ' ')} ${row.idn}: invoice ${row.invoice} of ${row.merchantMin}`,
  });
}

/** A replay repairs a registration whose workflow start was lost (the start is idempotent by id). */
export async function ensureWorkflow(deps: UseCaseDeps, row: Obligation): Promise<void> {
  if (!isOpen(row.status)) return;
  try {
    await startWorkflow(deps, row);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** What one registering operation adds to the shared steps: its payload, kind, expiry and details. */
export interface RegisteringPayload<Terms extends ObligationTerms> {
  payload: z.ZodType<Terms>;
  kind: ObligationKind;
  defaultExpiryMs: (config: Config) => number;
  /** Fields of the operation's own (recipient, IBAN, payer...), kept in the read model. */
  details?: (terms: Terms) => Record<string, string>;
}

/** Registers the obligation an ENCODED/CHECKSUM packet asks for: authenticate, parse the payload, register once. */
export async function registerPacket<Terms extends ObligationTerms>(
  deps: UseCaseDeps,
  { params, operation }: { params: Record<string, string>; operation: RegisteringPayload<Terms> },
): Promise<Registered> {
  const { merchant, packet } = await authenticate(deps, params);
  const terms = parsePayload(operation.payload, packet);
  return registerObligation(deps, {
    merchant,
    packet,
    kind: operation.kind,
    terms,
    defaultExpiryMs: operation.defaultExpiryMs(deps.config),
    details: operation.details?.(terms) ?? {},
  });
}
