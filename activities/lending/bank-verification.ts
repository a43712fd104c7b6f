import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { and, asc, desc, eq, gt, isNull } from 'drizzle-orm';
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
import { lendingBankAccounts, lendingCustomers } from '../../db/schema/lending.ts';
import {
  lendingBankVerifications,
  lendingOpenBankingAgents,
  lendingOpenBankingUsers,
} from '../../db/schema/lending-payment-options.ts';
import { consentStateDigest, verifyBankAccount } from '../../domain/lending/bank-verification.ts';
import {
  BankVerificationFailure,
  type BankVerificationInput,
  type ConsentStep,
  enrolmentEmail,
  type GatewayRefusalDetails,
  type GatewayStep,
  type OutcomeStep,
  type VerificationBank,
} from '../../domain/lending/sibling-processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Bank verification's steps at the open-banking gateway (decisions 0042, 0047), each an activity of the
 * customer's bank-verification workflow: lending's agent there (signed up on first use in the sandbox),
 * the customer's enrolment as its user, the banks, the consent, and the decision once the consent has
 * ended. Every gateway call is made here, outside any database transaction; what a step learns is
 * recorded before it answers. Hashes never leave these functions (they are kept sealed in lending's
 * tables), so no workflow history holds a credential.
 */

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

export type EnrolmentStep = BankVerificationInput & GatewayStep & { attempt: number };

/**
 * A gateway refusal (4xx) fails the step at once with its status and code; anything else (unreachable,
 * 5xx, a timeout) is thrown as it is, for the workflow's retry policy.
 */
function stepFailure(error: unknown): unknown {
  if (error instanceof OpenBankingGatewayError && error.status >= 400 && error.status < 500) {
    const details: GatewayRefusalDetails = { status: error.status, code: error.code };
    return ApplicationFailure.nonRetryable(error.message, BankVerificationFailure.refused, details);
  }
  return error;
}

async function atGateway<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw stepFailure(error);
  }
}

export function createBankVerificationActivities({ db, config, fetch }: ActivityDeps) {
  const clientOf = (gatewayUrl: string): OpenBankingClient =>
    openBankingClient({
      baseUrl: gatewayUrl,
      timeoutMs: config.LENDING_OPENBANKING_REQUEST_TIMEOUT,
      ...(fetch ? { fetch } : {}),
    });

  /**
   * Lending's `x-agent-hash`: LENDING_OPENBANKING_AGENT_HASH, else (sandbox mode: production requires the
   * setting) the agent lending signed up for itself at this gateway, signing up on first use.
   */
  async function agentHashOf(gatewayUrl: string): Promise<string> {
    if (config.LENDING_OPENBANKING_AGENT_HASH) return config.LENDING_OPENBANKING_AGENT_HASH;
    if (config.PLATFORM_MODE === 'production')
      throw ApplicationFailure.nonRetryable(
        'LENDING_OPENBANKING_AGENT_HASH is not set',
        BankVerificationFailure.unavailable,
      );
    const stored = async () => {
      const [row] = await db
        .select()
        .from(lendingOpenBankingAgents)
        .where(eq(lendingOpenBankingAgents.gatewayUrl, gatewayUrl))
        .limit(1);
      return row && openOpenBankingHash(config, 'agent', gatewayUrl, row.agentHashSealed);
    };
    const existing = await stored();
    if (existing) return existing;
    const agent = await atGateway(() => clientOf(gatewayUrl).signupAgent('Lending platform'));
    // Two first uses at once sign up twice; the first row wins and the other agent stays unused.
    await db
      .insert(lendingOpenBankingAgents)
      .values({
        gatewayUrl,
        agentId: agent.agentId,
        agentHashSealed: sealOpenBankingHash(config, 'agent', gatewayUrl, agent.agentHash),
      })
      .onConflictDoNothing();
    return (await stored()) ?? agent.agentHash;
  }

  /** The customer's enrolment under the agent, if recorded: its user hash. */
  async function enrolledUser(step: BankVerificationInput & GatewayStep) {
    const agentHash = await agentHashOf(step.gatewayUrl);
    const agentKey = digest(agentHash);
    const [row] = await db
      .select()
      .from(lendingOpenBankingUsers)
      .where(
        and(
          eq(lendingOpenBankingUsers.customerId, step.customerId),
          eq(lendingOpenBankingUsers.agentKey, agentKey),
        ),
      )
      .limit(1);
    const owner = `${step.customerId}:${agentKey}`;
    return {
      agentHash,
      agentKey,
      owner,
      userHash: row ? openOpenBankingHash(config, 'user', owner, row.userHashSealed) : undefined,
    };
  }

  /** The user hash of a customer the workflow has enrolled (a step after enrolment). */
  async function userHashOf(step: BankVerificationInput & GatewayStep): Promise<string> {
    const { userHash } = await enrolledUser(step);
    if (!userHash) throw new Error(`customer ${step.customerId} is not enrolled at ${step.gatewayUrl}`);
    return userHash;
  }

  return {
    /**
     * Enrols the customer as the agent's user unless recorded already (then nothing is asked). The
     * gateway gets no personal data: a placeholder name, the attempt's undeliverable address and the
     * customer id as the agent's own reference. A retry of this activity asks again with the same
     * address; `user_exists` then means an earlier attempt was enrolled but its answer lost, which fails
     * as `OpenBankingEnrolmentLost` for the workflow to move to the next address.
     */
    async enrolVerificationCustomer(step: EnrolmentStep): Promise<void> {
      const enrolled = await enrolledUser(step);
      if (enrolled.userHash) return;
      let user: { userId: string; userHash: string };
      try {
        user = await clientOf(step.gatewayUrl).enrolUser(enrolled.agentHash, {
          name: 'Lending',
          family: 'Customer',
          email: enrolmentEmail(step.customerId, step.attempt),
          identityHash: step.customerId,
        });
      } catch (error) {
        if (error instanceof OpenBankingGatewayError && error.status === 409 && error.code === 'user_exists')
          throw ApplicationFailure.nonRetryable(
            `enrolment ${step.attempt} of the customer was made but its answer was lost`,
            BankVerificationFailure.enrolmentLost,
          );
        throw stepFailure(error);
      }
      await db
        .insert(lendingOpenBankingUsers)
        .values({
          customerId: step.customerId,
          agentKey: enrolled.agentKey,
          tenantId: step.tenantId,
          userId: user.userId,
          userHashSealed: sealOpenBankingHash(config, 'user', enrolled.owner, user.userHash),
        })
        // Only this customer's workflow enrols them, one step at a time: a row here is this enrolment's.
        .onConflictDoNothing();
    },

    /** `GET /api/8/banks` as the customer. */
    async verificationBanks(step: BankVerificationInput & GatewayStep): Promise<VerificationBank[]> {
      const userHash = await userHashOf(step);
      const banks = await atGateway(() => clientOf(step.gatewayUrl).banks(userHash));
      return banks.map((bank) => ({ bankHash: bank.bankHash, name: bank.name, country: bank.country }));
    },

    /**
     * A one-shot account-list consent at the bank, recorded as the loan's pending verification. A retry
     * (or a second Settings) finds the pending verification at that bank whose frame is still open and
     * starts nothing.
     */
    async startVerificationConsent(
      step: BankVerificationInput & ConsentStep,
    ): Promise<{ verificationId: string }> {
      const [open] = await db
        .select({ id: lendingBankVerifications.id })
        .from(lendingBankVerifications)
        .where(
          and(
            eq(lendingBankVerifications.tenantId, step.tenantId),
            eq(lendingBankVerifications.loanId, step.loanId),
            eq(lendingBankVerifications.status, 'pending'),
            eq(lendingBankVerifications.bankHash, step.bankHash),
            gt(lendingBankVerifications.scaDeadline, new Date()),
          ),
        )
        .orderBy(desc(lendingBankVerifications.createdAt))
        .limit(1);
      if (open) return { verificationId: open.id };
      const userHash = await userHashOf(step);
      const started = await atGateway(() =>
        clientOf(step.gatewayUrl).startConsent(
          userHash,
          { bankHash: step.bankHash, kind: 'account-list', app: 'lending' },
          { userAgent: step.userAgent },
        ),
      );
      if (!started.scaRedirectUrl) {
        const details: GatewayRefusalDetails = { status: 409, code: 'sca_flow_not_supported' };
        throw ApplicationFailure.nonRetryable(
          'The bank has no page to open in the verification frame',
          BankVerificationFailure.refused,
          details,
        );
      }
      const verificationId = newRecordId('bkv');
      await db.insert(lendingBankVerifications).values({
        id: verificationId,
        tenantId: step.tenantId,
        customerId: step.customerId,
        loanId: step.loanId,
        status: 'pending',
        bankHash: step.bankHash,
        consentId: started.consentId,
        stateDigest: consentStateDigest(started.state),
        frameUrl: started.scaRedirectUrl,
        scaDeadline: new Date(started.scaDeadline),
        consentStatus: 'AWAITING_SCA',
      });
      return { verificationId };
    },

    /**
     * How the verification's consent stands at the gateway, recorded: once it has ended the
     * verification is decided (domain/lending/bank-verification.ts) by the accounts the bank listed
     * under it. A verification no longer pending (a concurrent skip or decision) stays as it is.
     */
    async decideVerification(step: BankVerificationInput & OutcomeStep): Promise<void> {
      const [current] = await db
        .select()
        .from(lendingBankVerifications)
        .where(
          and(
            eq(lendingBankVerifications.id, step.verificationId),
            eq(lendingBankVerifications.tenantId, step.tenantId),
          ),
        )
        .limit(1);
      if (current?.status !== 'pending' || !current.consentId) return;
      const consentId = current.consentId;
      const userHash = await userHashOf(step);
      const client = clientOf(step.gatewayUrl);
      const consent = (await atGateway(() => client.consents(userHash))).find(
        (token) => token.consentId === consentId,
      );
      let decision:
        | { status: 'verified' | 'not_verified'; matchedIban: string | null; reason: string | null }
        | undefined;
      if (consent && consent.status !== 'AWAITING_SCA' && consent.status !== 'ACTIVE') {
        decision = {
          status: 'not_verified',
          matchedIban: null,
          reason: `the consent ended ${consent.status}${consent.statusReason ? `: ${consent.statusReason}` : ''}`,
        };
      } else if (consent?.status === 'ACTIVE') {
        const listed = (await atGateway(() => client.listedAccounts(userHash))).filter(
          (account) => account.consentId === consentId,
        );
        const result = verifyBankAccount(listed, await customerAccounts(step), await customerName(step));
        decision = {
          status: result.verified ? 'verified' : 'not_verified',
          matchedIban: result.matchedIban,
          reason: result.reason,
        };
      }
      const now = new Date();
      await db
        .update(lendingBankVerifications)
        .set({
          consentStatus: consent?.status ?? null,
          updatedAt: now,
          ...(decision ? { ...decision, decidedAt: now } : {}),
        })
        .where(
          and(eq(lendingBankVerifications.id, current.id), eq(lendingBankVerifications.status, 'pending')),
        );
    },
  };

  /** The customer's bank accounts (PaymentOptions/BankAccounts), deleted ones aside. */
  function customerAccounts(step: BankVerificationInput) {
    return db
      .select({ iban: lendingBankAccounts.iban, holderName: lendingBankAccounts.holderName })
      .from(lendingBankAccounts)
      .where(
        and(
          eq(lendingBankAccounts.tenantId, step.tenantId),
          eq(lendingBankAccounts.customerId, step.customerId),
          isNull(lendingBankAccounts.deletedAt),
        ),
      )
      .orderBy(asc(lendingBankAccounts.createdAt), asc(lendingBankAccounts.id));
  }

  /** The customer's first and last name as Customer/Details hold them, if any. */
  async function customerName(step: BankVerificationInput): Promise<string | null> {
    const [customer] = await db
      .select({ details: lendingCustomers.details })
      .from(lendingCustomers)
      .where(and(eq(lendingCustomers.id, step.customerId), eq(lendingCustomers.tenantId, step.tenantId)))
      .limit(1);
    const details = customer?.details ?? {};
    const name = [details.firstName, details.lastName].filter((part) => typeof part === 'string').join(' ');
    return name || null;
  }
}
