import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { messagingHlrLookups } from '../../db/schema/messaging.ts';
import { type HlrLookupInput, type HlrResult, hlrWorkflowId } from '../../domain/messaging/processes.ts';
import { normaliseNumber } from '../../domain/phone-numbers.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { hlrLookup } from '../../workflows/messaging/hlr.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Number lookups (HLR) of an account (POST /hlr, GET /hlr/{id}): a lookup is accepted at once, and its
 * workflow (`hlr-<id>`) asks the HLR provider and POSTs the result to `callBackUrl` as a signed
 * `hlr.result` webhook, retried with backoff until the receiver answers 2xx.
 */

export interface AcceptedLookup {
  id: string;
  number: string;
  status: 'pending';
}

export interface HlrLookupView {
  id: string;
  number: string;
  status: 'pending' | 'completed' | 'failed';
  callBackUrl: string;
  /** The result as sent to callBackUrl; null while pending. */
  result: HlrResult | null;
  createdAt: string;
  completedAt: string | null;
}

/** Records a lookup and starts its workflow. */
export async function startHlrLookup(
  deps: UseCaseDeps,
  request: { accountId: string; number: string; callBackUrl: string },
): Promise<AcceptedLookup> {
  const { accountId } = request;
  const { db, temporal, config } = deps;
  const number = normaliseNumber(request.number);
  if (!number) throw Refusal.field('number', 'not a valid phone number in international format');
  assertOutboundUrlField(config, 'callBackUrl', request.callBackUrl);

  const id = randomUUID();
  await db
    .insert(messagingHlrLookups)
    .values({ id, accountId, number: number.e164, callBackUrl: request.callBackUrl, status: 'pending' });
  const input: HlrLookupInput = {
    lookupId: id,
    accountId,
    number: number.e164,
    numberCountry: number.countryIso ?? null,
    callBackUrl: request.callBackUrl,
    lookupTimeoutMs: config.HLR_LOOKUP_TIMEOUT,
  };
  try {
    await temporal.workflow.start<typeof hlrLookup>('hlrLookup', {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: hlrWorkflowId(id),
      args: [input],
      typedSearchAttributes: [
        { key: PlatformService, value: 'messaging' },
        { key: OwnerId, value: accountId },
        { key: BusinessStatus, value: 'pending' },
      ],
      staticSummary: `HLR lookup of ${number.e164}`,
    });
  } catch (error) {
    // No workflow, no result: do not leave a lookup behind that stays pending for ever.
    await db.delete(messagingHlrLookups).where(eq(messagingHlrLookups.id, id));
    throw error;
  }
  return { id, number: number.e164, status: 'pending' };
}

/** A lookup of the account and, once it is done, its result; 404 for another account's. */
export async function getHlrLookup(
  deps: UseCaseDeps,
  { accountId, id }: { accountId: string; id: string },
): Promise<HlrLookupView> {
  const [row] = await deps.db
    .select()
    .from(messagingHlrLookups)
    .where(and(eq(messagingHlrLookups.id, id), eq(messagingHlrLookups.accountId, accountId)));
  if (!row) throw Refusal.notFound('HLR lookup');
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    callBackUrl: row.callBackUrl,
    result: (row.result as HlrResult | null) ?? null,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}
