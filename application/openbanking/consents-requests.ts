import { and, desc, eq, type SQL } from 'drizzle-orm';
import { resolveUserHash } from '../../credentials/openbanking/identity.ts';
import { obConsentsRequests } from '../../db/schema/openbanking.ts';
import type { ConsentScope } from '../../domain/openbanking/consents.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Consents requests ("cgate"): an operator, acting for an agent, asks one of the agent's users to grant
 * a consent for given banks and scopes. The user's interface lists its requests; a request is fulfilled
 * when the user completes a consent that covers it (fulfilConsentsRequests in
 * activities/openbanking/consent.ts, called by the consent flow).
 */

export interface ConsentsRequestView {
  id: string;
  userId: string;
  agentId: string;
  banks: string[];
  scopes: ConsentScope[];
  message: string | null;
  fulfilled: boolean;
  consentId: string | null;
  createdAt: string;
  fulfilledAt: string | null;
}

type Row = typeof obConsentsRequests.$inferSelect;

const toView = (row: Row): ConsentsRequestView => ({
  id: row.id,
  userId: row.userId,
  agentId: row.agentId,
  banks: row.banks,
  scopes: row.scopes as ConsentScope[],
  message: row.message,
  fulfilled: row.status === 'fulfilled',
  consentId: row.consentId,
  createdAt: row.createdAt.toISOString(),
  fulfilledAt: row.fulfilledAt?.toISOString() ?? null,
});

/** Asks the user of `userHash` (one the agent enrolled, else 404) for a consent. */
export async function createConsentsRequest(
  deps: UseCaseDeps,
  {
    agentId,
    ...request
  }: {
    agentId: string;
    userHash: string;
    banks: string[];
    scopes: ConsentScope[];
    message?: string | undefined;
  },
): Promise<ConsentsRequestView> {
  const { db } = deps;
  const user = await resolveUserHash(db, request.userHash);
  if (!user || user.agentId !== agentId) throw Refusal.notFound('User');
  const [row] = await db
    .insert(obConsentsRequests)
    .values({
      id: newId('cgr'),
      agentId,
      userId: user.userId,
      banks: [...new Set(request.banks)],
      scopes: [...new Set(request.scopes)],
      message: request.message ?? null,
      status: 'open',
    })
    .returning();
  return toView(row!);
}

/** Whose requests are listed: a user by id (the user itself), or by a user hash (an operator; unknown: 404). */
export type RequestsOwner = { userId: string } | { userHash: string };

/** A user's consents requests, newest first (at most 200); `fulfilled` 'true'/'false' filters, omitted all. */
export async function listConsentsRequests(
  deps: UseCaseDeps,
  { owner, fulfilled }: { owner: RequestsOwner; fulfilled?: 'true' | 'false' | undefined },
): Promise<{ items: ConsentsRequestView[] }> {
  const { db } = deps;
  let userId: string;
  if ('userId' in owner) userId = owner.userId;
  else {
    const user = await resolveUserHash(db, owner.userHash);
    if (!user) throw Refusal.notFound('User');
    userId = user.userId;
  }
  const conditions: SQL[] = [eq(obConsentsRequests.userId, userId)];
  if (fulfilled) conditions.push(eq(obConsentsRequests.status, fulfilled === 'true' ? 'fulfilled' : 'open'));
  const rows = await db
    .select()
    .from(obConsentsRequests)
    .where(and(...conditions))
    .orderBy(desc(obConsentsRequests.createdAt), desc(obConsentsRequests.id))
    .limit(200);
  return { items: rows.map(toView) };
}
