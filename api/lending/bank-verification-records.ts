import { createHash } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import { listBankAccounts } from '../../application/lending/bank-accounts.ts';
import { loanOf } from '../../application/lending/loans.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import {
  type OpenBankingClient,
  OpenBankingGatewayError,
  openBankingClient,
} from '../../connectors/lending/openbanking.ts';
import {
  openOpenBankingHash,
  sealOpenBankingHash,
} from '../../credentials/lending/openbanking-credentials.ts';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import { lendingCustomers } from '../../db/schema/lending.ts';
import {
  type BankVerificationStatus,
  lendingBankVerifications,
  lendingOpenBankingAgents,
  lendingOpenBankingUsers,
} from '../../db/schema/lending-payment-options.ts';
import { verifyBankAccount } from '../../domain/lending/bank-verification.ts';
import { openLoanStatuses } from '../../domain/lending/loan-lifecycle.ts';
import { publicBaseUrl } from '../shared/public-url.ts';
import { lendingErrorResponses } from './auth.ts';
import type { LendingEnv } from './context.ts';
import { bankVerificationErrors } from './payment-option-schemas.ts';

/**
 * Bank verification of a loan (decision 0042): a one-shot `account-list` consent through the
 * open-banking gateway's public API, lending acting as an agent there and the customer as its user.
 * Settings starts the consent and hands the frame the bank's SCA page; SaveData records what the frame
 * returned; IsDataProcessed asks the gateway how the consent ended and decides by
 * domain/lending/bank-verification.ts; CancelBankVerification records a skip with its reason.
 */

type Row = typeof lendingBankVerifications.$inferSelect;

export const bankVerificationSchema = z
  .object({
    loanId: z.string().openapi({ example: '482913675' }),
    verificationId: z.string().nullable().openapi({ example: 'bkv_9d2c4f1e0a7b4c6d8e3f2a10' }),
    status: z.enum(['not_started', 'pending', 'verified', 'not_verified', 'skipped']).openapi({
      description:
        '`not_started`: no verification yet; `pending`: the consent waits for the customer at the bank; ' +
        '`verified`: the bank listed one of the customer’s accounts in their name; `not_verified`: it did not, or ' +
        'the consent did not complete (`reason`); `skipped`: CancelBankVerification',
    }),
    processed: z.boolean().openapi({ description: 'The verification is decided (not pending)' }),
    verified: z.boolean(),
    bankHash: z.string().nullable(),
    frameUrl: z.string().nullable().openapi({ description: 'The bank’s SCA page to open in the frame' }),
    frameExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: 'The customer must finish at the bank by then' }),
    consentStatus: z.string().nullable().openapi({ description: 'The consent at the gateway, as last read' }),
    matchedIban: z.string().nullable(),
    reason: z.string().nullable(),
    frameDataSavedAt: z.string().nullable(),
    decidedAt: z.string().nullable(),
  })
  .openapi('BankVerification');

export type BankVerificationView = z.infer<typeof bankVerificationSchema>;

/** The answers of the operations that answer with the verification itself (IsDataProcessed, SaveData). */
export const bankVerificationResponses = {
  200: {
    description: 'The verification',
    content: { 'application/json': { schema: bankVerificationSchema } },
  },
  ...lendingErrorResponses,
  ...bankVerificationErrors,
};

export function verificationView(loanId: string, row: Row | undefined): BankVerificationView {
  const status = row?.status ?? 'not_started';
  const open = row?.status === 'pending' && (row.scaDeadline?.getTime() ?? 0) > Date.now();
  return {
    loanId,
    verificationId: row?.id ?? null,
    status,
    processed: status !== 'not_started' && status !== 'pending',
    verified: status === 'verified',
    bankHash: row?.bankHash ?? null,
    frameUrl: open ? (row?.frameUrl ?? null) : null,
    frameExpiresAt: open ? (row?.scaDeadline?.toISOString() ?? null) : null,
    consentStatus: row?.consentStatus ?? null,
    matchedIban: row?.matchedIban ?? null,
    reason: row?.reason ?? null,
    frameDataSavedAt: row?.frameDataSavedAt?.toISOString() ?? null,
    decidedAt: row?.decidedAt?.toISOString() ?? null,
  };
}

// --- the gateway, lending's agent there, and the customer's user ------------------------------------

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

function gatewayOf(c: Context<LendingEnv>): { client: OpenBankingClient; baseUrl: string } {
  const { config } = c.get('deps');
  // LendingEnv extends AppEnv, but Hono's Context is invariant in its environment.
  const own = () => `${publicBaseUrl(c)}/openbanking`;
  const baseUrl = (config.LENDING_OPENBANKING_URL ?? own()).replace(/\/+$/, '');
  return {
    baseUrl,
    client: openBankingClient({ baseUrl, timeoutMs: config.LENDING_OPENBANKING_REQUEST_TIMEOUT }),
  };
}

/** The gateway could not serve a verification now: 503, never a 500. */
function unavailable(error: unknown): Refusal {
  const detail = error instanceof Error ? error.message : String(error);
  return new Refusal(
    503,
    'bank_verification_unavailable',
    `The open-banking gateway cannot be used for bank verification now (${detail})`,
  );
}

/**
 * Lending's `x-agent-hash`: LENDING_OPENBANKING_AGENT_HASH, else (sandbox mode: production requires the
 * setting) the agent lending signed up for itself at this gateway, signing up on first use.
 */
async function agentHashOf(c: Context<LendingEnv>, baseUrl: string, client: OpenBankingClient) {
  const { db, config } = c.get('deps');
  if (config.LENDING_OPENBANKING_AGENT_HASH) return config.LENDING_OPENBANKING_AGENT_HASH;
  if (config.PLATFORM_MODE === 'production') throw unavailable('LENDING_OPENBANKING_AGENT_HASH is not set');
  const stored = async () => {
    const [row] = await db
      .select()
      .from(lendingOpenBankingAgents)
      .where(eq(lendingOpenBankingAgents.gatewayUrl, baseUrl))
      .limit(1);
    return row && openOpenBankingHash(config, 'agent', baseUrl, row.agentHashSealed);
  };
  const existing = await stored();
  if (existing) return existing;
  const agent = await client.signupAgent('Lending platform');
  // Two first uses at once sign up twice; the first row wins and the other agent stays unused.
  await db
    .insert(lendingOpenBankingAgents)
    .values({
      gatewayUrl: baseUrl,
      agentId: agent.agentId,
      agentHashSealed: sealOpenBankingHash(config, 'agent', baseUrl, agent.agentHash),
    })
    .onConflictDoNothing();
  return (await stored()) ?? agent.agentHash;
}

/**
 * The customer's `x-user-hash` under lending's agent, enrolling them on first use. The gateway gets no
 * personal data: a placeholder name, an undeliverable address and the customer id as the agent's own
 * reference (nothing it does for a verification needs more).
 */
async function userHashOf(
  c: Context<LendingEnv>,
  gateway: { client: OpenBankingClient; baseUrl: string },
  tenantId: string,
  customerId: string,
): Promise<string> {
  const { db, config } = c.get('deps');
  const agentHash = await agentHashOf(c, gateway.baseUrl, gateway.client);
  const agentKey = digest(agentHash);
  const owner = `${customerId}:${agentKey}`;
  return db.transaction(async (tx) => {
    // One enrolment per customer at a time (the gateway refuses the same e-mail twice).
    await tx
      .select({ id: lendingCustomers.id })
      .from(lendingCustomers)
      .where(eq(lendingCustomers.id, customerId))
      .for('update');
    const [row] = await tx
      .select()
      .from(lendingOpenBankingUsers)
      .where(
        and(
          eq(lendingOpenBankingUsers.customerId, customerId),
          eq(lendingOpenBankingUsers.agentKey, agentKey),
        ),
      )
      .limit(1);
    if (row) return openOpenBankingHash(config, 'user', owner, row.userHashSealed);
    const user = await gateway.client.enrolUser(agentHash, {
      name: 'Lending',
      family: 'Customer',
      email: `${customerId}@customers.lending.invalid`,
      identityHash: customerId,
    });
    await tx.insert(lendingOpenBankingUsers).values({
      customerId,
      agentKey,
      tenantId,
      userId: user.userId,
      userHashSealed: sealOpenBankingHash(config, 'user', owner, user.userHash),
    });
    return user.userHash;
  });
}

/**
 * Runs gateway calls: a refusal the customer can act on (`notFound` for a 404, a 409 as it is) is
 * answered as such; anything else is 503 `bank_verification_unavailable`.
 */
async function withGateway<T>(work: () => Promise<T>, notFound?: () => Refusal): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refusal) throw error;
    if (error instanceof OpenBankingGatewayError) {
      if (error.status === 404 && notFound) throw notFound();
      if (error.status === 409) throw Refusal.conflict(error.code, error.message);
    }
    throw unavailable(error);
  }
}

// --- the loan's verification ------------------------------------------------------------------------

async function currentVerification(c: Context<LendingEnv>, loanId: string): Promise<Row | undefined> {
  const [row] = await c
    .get('deps')
    .db.select()
    .from(lendingBankVerifications)
    .where(
      and(
        eq(lendingBankVerifications.tenantId, c.get('lendingTenant').id),
        eq(lendingBankVerifications.loanId, loanId),
      ),
    )
    .orderBy(desc(lendingBankVerifications.createdAt))
    .limit(1);
  return row;
}

/** The customer's loan (404 for another's) and its current verification. */
async function loanAndVerification(c: Context<LendingEnv>, customerId: string, loanId: string) {
  const loan = await loanOf(c.get('deps'), { tenantId: c.get('lendingTenant').id, customerId }, loanId);
  return { loan, current: await currentVerification(c, loan.loanId) };
}

export interface SettingsRequest {
  loanId: string;
  bankHash?: string | undefined;
}

/**
 * Settings: without `bankHash`, the banks to choose from (and the open frame of a pending verification);
 * with it, a pending verification at that bank whose frame is still open, else a new consent.
 */
export async function verificationSettings(
  c: Context<LendingEnv>,
  customerId: string,
  request: SettingsRequest,
) {
  const { loan, current } = await loanAndVerification(c, customerId, request.loanId);
  const gateway = gatewayOf(c);
  const tenantId = c.get('lendingTenant').id;
  const { bankHash } = request;
  const decided = current !== undefined && current.status !== 'pending' && current.status !== 'not_verified';
  const frameOpen =
    current?.status === 'pending' &&
    (current.scaDeadline?.getTime() ?? 0) > Date.now() &&
    (bankHash === undefined || current.bankHash === bankHash);
  if (decided || frameOpen || bankHash === undefined) {
    const banks =
      decided || frameOpen
        ? []
        : await withGateway(async () =>
            (await gateway.client.banks(await userHashOf(c, gateway, tenantId, customerId))).map((bank) => ({
              bankHash: bank.bankHash,
              name: bank.name,
              country: bank.country,
            })),
          );
    return { ...verificationView(loan.loanId, current), banks };
  }
  if (!openLoanStatuses.includes(loan.status)) {
    throw Refusal.conflict(
      'invalid_loan_status',
      `Bank verification is not available for a loan in status ${loan.status}`,
    );
  }
  const started = await withGateway(
    async () =>
      gateway.client.startConsent(
        await userHashOf(c, gateway, tenantId, customerId),
        { bankHash, kind: 'account-list', app: 'lending' },
        { userAgent: c.req.header('user-agent') },
      ),
    () => Refusal.field('bankHash', 'not an active bank of the open-banking gateway'),
  );
  if (!started.scaRedirectUrl) {
    throw Refusal.conflict(
      'sca_flow_not_supported',
      'The bank has no page to open in the verification frame',
    );
  }
  const [row] = await c
    .get('deps')
    .db.insert(lendingBankVerifications)
    .values({
      id: newRecordId('bkv'),
      tenantId,
      customerId,
      loanId: loan.loanId,
      status: 'pending',
      bankHash,
      consentId: started.consentId,
      stateDigest: digest(started.state),
      frameUrl: started.scaRedirectUrl,
      scaDeadline: new Date(started.scaDeadline),
      consentStatus: 'AWAITING_SCA',
    })
    .returning();
  return { ...verificationView(loan.loanId, row), banks: [] };
}

export const saveDataSchema = z
  .object({
    loanId: z.string().min(1).max(40).openapi({ example: '482913675' }),
    state: z.string().min(1).max(200).optional().openapi({
      description: 'The `state` the frame’s return URL carried (checked against the verification’s consent)',
    }),
    consentId: z.string().min(1).max(100).optional(),
  })
  .openapi('BankVerificationData');

/** SaveData: records the frame's return (checked against the pending consent), then processes it. */
export async function saveFrameData(
  c: Context<LendingEnv>,
  customerId: string,
  data: z.infer<typeof saveDataSchema>,
): Promise<BankVerificationView> {
  const { loan, current } = await loanAndVerification(c, customerId, data.loanId);
  if (current?.status !== 'pending') {
    throw Refusal.conflict(
      'no_pending_bank_verification',
      `The loan has no bank verification waiting for the frame (status ${current?.status ?? 'not_started'})`,
    );
  }
  if (data.state !== undefined && digest(data.state) !== current.stateDigest)
    throw Refusal.field('state', 'does not belong to the loan’s pending bank verification');
  if (data.consentId !== undefined && data.consentId !== current.consentId)
    throw Refusal.field('consentId', 'does not belong to the loan’s pending bank verification');
  await c
    .get('deps')
    .db.update(lendingBankVerifications)
    .set({ frameDataSavedAt: new Date(), updatedAt: new Date() })
    .where(eq(lendingBankVerifications.id, current.id));
  return processVerification(c, customerId, loan.loanId);
}

interface Outcome {
  consentStatus: string | null;
  /** Set once the consent has ended: the verification's decision. */
  decision?: { status: 'verified' | 'not_verified'; matchedIban: string | null; reason: string | null };
}

/** IsDataProcessed: a pending verification is decided once its consent has ended at the gateway. */
export async function processVerification(
  c: Context<LendingEnv>,
  customerId: string,
  loanId: string,
): Promise<BankVerificationView> {
  const { loan, current } = await loanAndVerification(c, customerId, loanId);
  if (current?.status !== 'pending' || !current.consentId) return verificationView(loan.loanId, current);
  const gateway = gatewayOf(c);
  const tenantId = c.get('lendingTenant').id;
  const { db } = c.get('deps');
  const consentId = current.consentId;
  const outcome = await withGateway(async (): Promise<Outcome> => {
    const userHash = await userHashOf(c, gateway, tenantId, customerId);
    const consent = (await gateway.client.consents(userHash)).find((token) => token.consentId === consentId);
    if (!consent || consent.status === 'AWAITING_SCA') return { consentStatus: consent?.status ?? null };
    if (consent.status !== 'ACTIVE') {
      return {
        consentStatus: consent.status,
        decision: {
          status: 'not_verified',
          matchedIban: null,
          reason: `the consent ended ${consent.status}${consent.statusReason ? `: ${consent.statusReason}` : ''}`,
        },
      };
    }
    const listed = (await gateway.client.listedAccounts(userHash)).filter(
      (account) => account.consentId === consentId,
    );
    const [customer] = await db
      .select({ details: lendingCustomers.details })
      .from(lendingCustomers)
      .where(eq(lendingCustomers.id, customerId))
      .limit(1);
    const details = customer?.details ?? {};
    const name = [details.firstName, details.lastName].filter((part) => typeof part === 'string').join(' ');
    const result = verifyBankAccount(listed, await listBankAccounts(db, tenantId, customerId), name || null);
    return {
      consentStatus: consent.status,
      decision: {
        status: result.verified ? 'verified' : 'not_verified',
        matchedIban: result.matchedIban,
        reason: result.reason,
      },
    };
  });
  const now = new Date();
  const [updated] = await db
    .update(lendingBankVerifications)
    .set({
      consentStatus: outcome.consentStatus,
      updatedAt: now,
      ...(outcome.decision ? { ...outcome.decision, decidedAt: now } : {}),
    })
    // Only a pending verification is decided (a concurrent skip or decision stands).
    .where(and(eq(lendingBankVerifications.id, current.id), eq(lendingBankVerifications.status, 'pending')))
    .returning();
  return verificationView(loan.loanId, updated ?? (await currentVerification(c, loan.loanId)));
}

/** CancelBankVerification: the loan goes on without one; the reason is recorded. A verified loan: 409. */
export async function skipVerification(
  c: Context<LendingEnv>,
  customerId: string,
  loanId: string,
  reason: string,
): Promise<BankVerificationView> {
  const { loan, current } = await loanAndVerification(c, customerId, loanId);
  if (current?.status === 'verified') {
    throw Refusal.conflict('bank_verification_completed', 'The loan’s bank account is verified already');
  }
  const { db } = c.get('deps');
  const now = new Date();
  const skipped: { status: BankVerificationStatus; reason: string; decidedAt: Date; updatedAt: Date } = {
    status: 'skipped',
    reason,
    decidedAt: now,
    updatedAt: now,
  };
  const [row] =
    current && current.status !== 'not_verified'
      ? await db
          .update(lendingBankVerifications)
          .set(skipped)
          .where(eq(lendingBankVerifications.id, current.id))
          .returning()
      : await db
          .insert(lendingBankVerifications)
          .values({
            id: newRecordId('bkv'),
            tenantId: c.get('lendingTenant').id,
            customerId,
            loanId: loan.loanId,
            ...skipped,
          })
          .returning();
  return verificationView(loan.loanId, row);
}
