import { WithStartWorkflowOperation } from '@temporalio/client';
import { and, count, desc, eq, gte, ilike, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import {
  digestOf,
  issueCredential,
  resolveUserHash,
  type UserIdentity,
} from '../../credentials/openbanking/identity.ts';
import {
  openIdentityReference,
  sealIdentityReference,
} from '../../credentials/openbanking/identity-reference.ts';
import { AUDIENCE, signJwt } from '../../credentials/openbanking/jws.ts';
import type { Database } from '../../db/client.ts';
import { obEmailOutbox, obUsers } from '../../db/schema/openbanking.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import { type KycStatus, kycTransitionAllowed } from '../../domain/openbanking/kyc.ts';
import {
  openBankingSearchAttributes,
  userDeletedUpdate,
  userDeletionWorkflowId,
} from '../../domain/openbanking/processes.ts';
import { isValidUic } from '../../domain/openbanking/uic.ts';
import type { Config } from '../../platform/config.ts';
import type { userDeletion } from '../../workflows/openbanking/index.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { findUsableHook } from './hooks.ts';

/**
 * The agent's users (customers): enrolment, the user record, KYC status, the agent's user list and
 * check, deletion, user tokens and the AIS e-mail. Read model ob_users; hashes in credentials/.
 */

export interface UserView {
  userId: string;
  agentId: string;
  companyName: string | null;
  uic: string | null;
  name: string;
  middleName: string | null;
  family: string;
  identityHash: string | null;
  email: string;
  webhookUrl: string | null;
  kycStatus: KycStatus;
  createdAt: string;
}

type UserRow = typeof obUsers.$inferSelect;

/** The record an agent reads; the identity hash is decrypted for it (it is stored encrypted). */
const toUserView = (row: UserRow, config: Config): UserView => ({
  userId: row.id,
  agentId: row.agentId,
  companyName: row.companyName,
  uic: row.uic,
  name: row.name,
  middleName: row.middleName,
  family: row.family,
  identityHash: row.identityHash ? openIdentityReference(config, row.id, row.identityHash) : null,
  email: row.email,
  webhookUrl: row.webhookUrl,
  kycStatus: row.kycStatus,
  createdAt: row.createdAt.toISOString(),
});

/** A live user of the agent; another agent's, a deleted or an unknown user is 404. */
async function findAgentUser(db: Database, agentId: string, userId: string): Promise<UserRow> {
  const [row] = await db
    .select()
    .from(obUsers)
    .where(and(eq(obUsers.id, userId), eq(obUsers.agentId, agentId), isNull(obUsers.deletedAt)))
    .limit(1);
  if (!row) throw Refusal.notFound('User');
  return row;
}

// ─── Enrolment ──────────────────────────────────────────────────────────────────────────────────

export interface SignupRequest {
  name: string;
  middleName?: string | undefined;
  family: string;
  identityHash?: string | undefined;
  email: string;
  /** Version 8's business fields; `undefined` before version 8 (they are then not read). */
  business?: { companyName?: string | undefined; uic?: string | undefined; webhookUrl?: string | undefined };
}

export interface SignedUpUser {
  userId: string;
  userHash: string;
  agentId: string;
  kycStatus: KycStatus;
  createdAt: string;
}

/** companyName and uic go together, and the UIC must be a valid one (each a field error). */
function businessFields(body: NonNullable<SignupRequest['business']>) {
  const fields: { field: string; message: string }[] = [];
  if (body.uic !== undefined && !isValidUic(body.uic)) {
    fields.push({
      field: 'uic',
      message: 'not a valid Bulgarian UIC (9 or 13 digits with a valid check digit)',
    });
  }
  if ((body.uic === undefined) !== (body.companyName === undefined)) {
    const missing = body.uic === undefined ? 'uic' : 'companyName';
    fields.push({ field: missing, message: 'companyName and uic go together' });
  }
  if (fields.length > 0) throw Refusal.validation(fields);
  return {
    companyName: body.companyName ?? null,
    uic: body.uic ?? null,
    webhookUrl: body.webhookUrl ?? null,
  };
}

/**
 * Enrols a customer under `agentId` and issues its user hash (shown once). `checkWebhookUrl` is the
 * outbound-URL check of the registration (decision 0027), run once the business fields are valid.
 * A live user with the same e-mail under the agent is 409 `user_exists`.
 */
export async function signUpUser(
  deps: UseCaseDeps,
  {
    agentId,
    request: body,
    checkWebhookUrl,
  }: { agentId: string; request: SignupRequest; checkWebhookUrl: (url: string | null) => void },
): Promise<SignedUpUser> {
  const { db, config } = deps;
  const business = body.business
    ? businessFields(body.business)
    : { companyName: null, uic: null, webhookUrl: null };
  checkWebhookUrl(business.webhookUrl);
  const userId = newId('usr');
  const created = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(obUsers)
      .values({
        id: userId,
        agentId,
        name: body.name,
        middleName: body.middleName ?? null,
        family: body.family,
        identityHash: body.identityHash ? sealIdentityReference(config, userId, body.identityHash) : null,
        email: body.email,
        ...business,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return undefined;
    const credential = await issueCredential(tx, { kind: 'user', agentId, userId, label: 'signup' });
    return { row, userHash: credential.hash };
  });
  if (!created) {
    throw new Refusal(409, 'user_exists', 'A user with this e-mail is already enrolled by this agent', [
      { field: 'email', message: 'already enrolled' },
    ]);
  }
  return {
    userId,
    userHash: created.userHash,
    agentId,
    kycStatus: created.row.kycStatus,
    createdAt: created.row.createdAt.toISOString(),
  };
}

// ─── KYC ────────────────────────────────────────────────────────────────────────────────────────

export interface KycStatusView {
  userId: string;
  status: KycStatus;
  reason: string | null;
  updatedAt: string | null;
}

const toKycStatus = (row: UserRow): KycStatusView => ({
  userId: row.id,
  status: row.kycStatus,
  reason: row.kycReason,
  updatedAt: row.kycUpdatedAt?.toISOString() ?? null,
});

/** The customer's KYC status (GET id/status). */
export async function readKycStatus(
  deps: UseCaseDeps,
  { user }: { user: UserIdentity },
): Promise<KycStatusView> {
  return toKycStatus(await findAgentUser(deps.db, user.agentId, user.userId));
}

/**
 * The agent reports the outcome of its identity check (POST kyc/update; moves: domain/openbanking/kyc.ts).
 * The same status and reason again is answered as it stands; a move not allowed is 409.
 */
export async function updateKycStatus(
  deps: UseCaseDeps,
  {
    agentId,
    ...request
  }: { agentId: string; userId: string; status: KycStatus; reason?: string | undefined },
): Promise<KycStatusView> {
  const { db } = deps;
  const user = await findAgentUser(db, agentId, request.userId);
  if (user.kycStatus === request.status && (request.reason ?? null) === user.kycReason) {
    return toKycStatus(user);
  }
  if (user.kycStatus !== request.status && !kycTransitionAllowed(user.kycStatus, request.status)) {
    throw Refusal.conflict(
      'kyc_transition_not_allowed',
      `The KYC status cannot move from ${user.kycStatus} to ${request.status}`,
    );
  }
  // Conditional on the status read, so two concurrent updates cannot both move it.
  const [updated] = await db
    .update(obUsers)
    .set({ kycStatus: request.status, kycReason: request.reason ?? null, kycUpdatedAt: new Date() })
    .where(and(eq(obUsers.id, user.id), eq(obUsers.kycStatus, user.kycStatus), isNull(obUsers.deletedAt)))
    .returning();
  if (!updated)
    throw Refusal.conflict('kyc_transition_not_allowed', 'The KYC status changed meanwhile; retry');
  return toKycStatus(updated);
}

// ─── The agent's users ──────────────────────────────────────────────────────────────────────────

export interface UserListQuery {
  /** The agent whose users are listed; undefined: every agent's (an operator). */
  agentId: string | undefined;
  page: number;
  size: number;
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  text?: string | undefined;
}

export interface UserPage {
  page: number;
  size: number;
  total: number;
  items: UserView[];
}

/** Live users, newest first, filtered by enrolment day (UTC) and a case-insensitive text. */
export async function listUsers(deps: UseCaseDeps, query: UserListQuery): Promise<UserPage> {
  const { page, size, dateFrom, dateTo, text } = query;
  const conditions: SQL[] = [isNull(obUsers.deletedAt)];
  if (query.agentId) conditions.push(eq(obUsers.agentId, query.agentId));
  if (dateFrom) conditions.push(gte(obUsers.createdAt, new Date(`${dateFrom}T00:00:00Z`)));
  if (dateTo)
    conditions.push(lt(obUsers.createdAt, new Date(Date.parse(`${dateTo}T00:00:00Z`) + 86_400_000)));
  if (text) {
    const pattern = `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const columns = [
      obUsers.name,
      obUsers.middleName,
      obUsers.family,
      obUsers.companyName,
      obUsers.uic,
      obUsers.email,
    ];
    conditions.push(or(...columns.map((column) => ilike(column, pattern)))!);
  }
  const where = and(...conditions);
  const { db } = deps;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(obUsers)
      .where(where)
      .orderBy(desc(obUsers.createdAt), desc(obUsers.id))
      .limit(size)
      .offset((page - 1) * size),
    db.select({ value: count() }).from(obUsers).where(where),
  ]);
  return { page, size, total: total?.value ?? 0, items: rows.map((row) => toUserView(row, deps.config)) };
}

export interface UserCheck {
  registered: boolean;
  userId: string | null;
  kycStatus: KycStatus | null;
  createdAt: string | null;
  hashMatches: boolean | null;
}

/** Whether the agent enrolled a live user with this e-mail, and whether `userHash` is that user's. */
export async function checkUser(
  deps: UseCaseDeps,
  { agentId, ...request }: { agentId: string; email: string; userHash?: string | undefined },
): Promise<UserCheck> {
  const { db } = deps;
  const [user] = await db
    .select()
    .from(obUsers)
    .where(
      and(
        eq(obUsers.agentId, agentId),
        sql`lower(${obUsers.email}) = lower(${request.email})`,
        isNull(obUsers.deletedAt),
      ),
    )
    .limit(1);
  let hashMatches: boolean | null = null;
  if (request.userHash !== undefined) {
    const holder = user ? await resolveUserHash(db, request.userHash) : undefined;
    hashMatches = holder?.userId === user?.id && holder !== undefined;
  }
  return {
    registered: user !== undefined,
    userId: user?.id ?? null,
    kycStatus: user?.kycStatus ?? null,
    createdAt: user?.createdAt.toISOString() ?? null,
    hashMatches,
  };
}

/**
 * Deletes the user: the user-deletion workflow (`ob-user-deletion-<userId>`) marks it deleted and
 * revokes its hashes (answered once done), then ends its consents at their banks in the background.
 */
export async function deleteUser(deps: UseCaseDeps, { user }: { user: UserIdentity }): Promise<void> {
  const { userId, agentId } = user;
  await deps.temporal.workflow.executeUpdateWithStart(userDeletedUpdate, {
    startWorkflowOperation: new WithStartWorkflowOperation<typeof userDeletion>('userDeletion', {
      workflowId: userDeletionWorkflowId(userId),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [{ userId }],
      typedSearchAttributes: openBankingSearchAttributes({ agentId, userId }),
      staticSummary: `Delete user ${userId} and end its consents`,
    }),
  });
}

// ─── Tokens and links ───────────────────────────────────────────────────────────────────────────

export interface UserToken {
  token: string;
  tokenType: 'Bearer';
  expiresIn: number;
  expiresAt: string;
  kid: string;
}

/** A time-limited user token (POST usertoken), signed with the gateway's current key. */
export async function issueUserToken(
  deps: UseCaseDeps,
  { user }: { user: UserIdentity },
): Promise<UserToken> {
  const { db, config } = deps;
  const { token, kid, expiresAt } = await signJwt(db, config, {
    audience: AUDIENCE.userToken,
    subject: user.userId,
    expiresInMs: config.OPENBANKING_USER_TOKEN_TTL,
    claims: { agent: user.agentId },
  });
  return {
    token,
    tokenType: 'Bearer',
    expiresIn: Math.round((expiresAt.getTime() - Date.now()) / 1000),
    expiresAt: expiresAt.toISOString(),
    kid,
  };
}

export interface AisEmail {
  messageId: string;
  recipient: string;
  link: string;
  expiresAt: string;
}

/**
 * Records an e-mail to the user with a signed AIS link (`<linkBase>?token=<JWT>`, valid
 * OPENBANKING_AIS_LINK_TTL) in the outbox and answers the link. A user whose KYC is REJECTED is 409
 * `kyc_rejected`; an unknown hook 404 naming `hookHash`.
 */
export async function sendAisEmail(
  deps: UseCaseDeps,
  {
    user,
    ...request
  }: { user: UserIdentity; hookHash?: string | undefined; bankHash?: string | undefined; linkBase: string },
): Promise<AisEmail> {
  const { db, config, logger } = deps;
  const row = await findAgentUser(db, user.agentId, user.userId);
  if (row.kycStatus === 'REJECTED') {
    throw Refusal.conflict('kyc_rejected', 'The user’s KYC status is REJECTED; no AIS link is sent');
  }
  if (request.hookHash && !(await findUsableHook(db, user, request.hookHash))) {
    throw new Refusal(404, 'not_found', 'Hook not found', [{ field: 'hookHash', message: 'unknown hook' }]);
  }
  const { token, expiresAt } = await signJwt(db, config, {
    audience: AUDIENCE.aisLink,
    subject: user.userId,
    expiresInMs: config.OPENBANKING_AIS_LINK_TTL,
    claims: {
      agent: user.agentId,
      ...(request.hookHash ? { hookHash: request.hookHash } : {}),
      ...(request.bankHash ? { bankHash: request.bankHash } : {}),
    },
  });
  const link = `${request.linkBase}?token=${token}`;
  const messageId = newId('eml');
  const subject = 'Connect your bank account';
  await db.insert(obEmailOutbox).values({
    id: messageId,
    agentId: user.agentId,
    userId: user.userId,
    kind: 'ais_link',
    recipient: row.email,
    subject,
    body: `Hello ${row.name},\n\nto share your account information, open this link (valid until ${expiresAt.toISOString()}):\n${link}\n`,
    // The token is a bearer credential: the row keeps its digest; the body is the e-mail as sent.
    tokenDigest: digestOf(token),
  });
  // The link is a bearer credential for starting a consent: log the message, not the link.
  logger.info(
    { kind: 'email', messageId, userId: user.userId, subject },
    'AIS e-mail recorded in the outbox',
  );
  return { messageId, recipient: row.email, link, expiresAt: expiresAt.toISOString() };
}
