import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { type CredentialKind, obAgents, obCredentials, obUsers } from '../../db/schema/openbanking.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import { credentialCache } from '../shared/credential-cache.ts';

export type { CredentialKind };

/**
 * The open-banking identity hashes: how they are issued, stored and checked. Hashes are `<kind>_` + 32
 * random bytes in base64url, shown once; only their SHA-256 digest is stored (ob_credentials) and a
 * presented hash is matched by its digest. Issued by `POST signup/agent` (agent + public hash, or
 * `npm run admin -- openbanking:agent`, or `POST /admin/openbanking/agents`), `POST signup` (user hash)
 * and `npm run admin -- openbanking:admin-hash` or `POST /admin/openbanking/admin-hashes` (admin hash).
 * The API's credential gate (api/openbanking/identity.ts) checks the headers with `resolveCredential`.
 */

export interface AgentIdentity {
  agentId: string;
}
export interface UserIdentity {
  userId: string;
  agentId: string;
}
export interface AdminIdentity {
  credentialId: string;
}

/** SHA-256 of a presented hash, hex; the only form in which hashes are stored. */
export function digestOf(hash: string): string {
  return createHash('sha256').update(hash).digest('hex');
}

/** A fresh identity hash of a kind, e.g. `agent_3q2+...` (43 base64url characters after the prefix). */
export function newIdentityHash(kind: CredentialKind): string {
  return `${kind}_${randomBytes(32).toString('base64url')}`;
}

/** Stores the digest of a new hash and returns the hash (shown once). */
export async function issueCredential(
  db: Database,
  owner: { kind: CredentialKind; agentId?: string; userId?: string; label?: string },
): Promise<{ credentialId: string; hash: string }> {
  const hash = newIdentityHash(owner.kind);
  const credentialId = newId('crd');
  await db.insert(obCredentials).values({
    id: credentialId,
    kind: owner.kind,
    digest: digestOf(hash),
    agentId: owner.agentId ?? null,
    userId: owner.userId ?? null,
    label: owner.label ?? null,
  });
  return { credentialId, hash };
}

export interface IssuedAgent {
  agentId: string;
  agentHash: string;
  publicHash: string;
  name: string;
  createdAt: string;
}

/** Enrols an agent with its agent hash and public hash (POST signup/agent, the admin command and endpoint). */
export async function enrolAgent(
  db: Database,
  agent: { name: string; email?: string | undefined },
): Promise<IssuedAgent> {
  const agentId = newId('agt');
  const [row] = await db
    .insert(obAgents)
    .values({ id: agentId, name: agent.name, email: agent.email ?? null })
    .returning();
  const agentHash = await issueCredential(db, { kind: 'agent', agentId, label: 'signup' });
  const publicHash = await issueCredential(db, { kind: 'public', agentId, label: 'signup' });
  return {
    agentId,
    agentHash: agentHash.hash,
    publicHash: publicHash.hash,
    name: agent.name,
    createdAt: row!.createdAt.toISOString(),
  };
}

/** Issues an operator's admin hash (x-admin-hash). */
export async function issueAdminHash(
  db: Database,
  label = 'admin',
): Promise<{ credentialId: string; adminHash: string }> {
  const { credentialId, hash } = await issueCredential(db, { kind: 'admin', label });
  return { credentialId, adminHash: hash };
}

export interface ResolvedCredential {
  credentialId: string;
  agentId: string | null;
  userId: string | null;
}

const credentials = credentialCache<ResolvedCredential>({
  name: 'openbanking-credentials',
  tables: [obCredentials, obUsers],
});

/** The live credential of a kind matching a presented hash (a deleted user's credentials never match). */
export async function resolveCredential(
  db: Database,
  kind: CredentialKind,
  hash: string,
): Promise<ResolvedCredential | undefined> {
  if (!hash.startsWith(`${kind}_`) || hash.length > 200) return undefined;
  const digest = digestOf(hash);
  return credentials.lookup(db, `${kind}:${digest}`, async () => {
    const [row] = await db
      .select({
        credentialId: obCredentials.id,
        agentId: obCredentials.agentId,
        userId: obCredentials.userId,
      })
      .from(obCredentials)
      .leftJoin(obUsers, eq(obUsers.id, obCredentials.userId))
      .where(
        and(
          eq(obCredentials.digest, digest),
          eq(obCredentials.kind, kind),
          isNull(obCredentials.revokedAt),
          isNull(obUsers.deletedAt),
        ),
      )
      .limit(1);
    return row;
  });
}

/** The agent of an agent hash given in a body (SignupDTO.agentHash); undefined when unknown. */
export async function resolveAgentHash(db: Database, hash: string): Promise<AgentIdentity | undefined> {
  const credential = await resolveCredential(db, 'agent', hash);
  return credential ? { agentId: credential.agentId! } : undefined;
}

/** The live user of a user hash given in a path or body (cgate, user check); undefined when unknown. */
export async function resolveUserHash(db: Database, hash: string): Promise<UserIdentity | undefined> {
  const credential = await resolveCredential(db, 'user', hash);
  return credential ? { userId: credential.userId!, agentId: credential.agentId! } : undefined;
}

/** Whether `userId` is a live (not deleted) user of `agentId`: a token's or a path's user still counts. */
export async function isLiveUserOf(db: Database, user: UserIdentity): Promise<boolean> {
  const [live] = await db
    .select({ id: obUsers.id })
    .from(obUsers)
    .where(and(eq(obUsers.id, user.userId), eq(obUsers.agentId, user.agentId), isNull(obUsers.deletedAt)))
    .limit(1);
  return live !== undefined;
}
