import { ApplicationFailure } from '@temporalio/common';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { xs2aClientFor, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { aisClientFor, storeBankTokens } from '../../credentials/openbanking/bank-tokens.ts';
import { signJws, TOKEN_ISSUER } from '../../credentials/openbanking/jws.ts';
import { scaSecretSubject } from '../../credentials/openbanking/sca-secrets.ts';
import type { Database } from '../../db/client.ts';
import {
  obAccounts,
  obBanks,
  obConsentAccounts,
  obConsents,
  obConsentsRequests,
  obHooks,
  obListedAccounts,
  obUsers,
} from '../../db/schema/openbanking.ts';
import {
  accessOf,
  type ConsentFinishedEvent,
  type ConsentOutcome,
  type ConsentScope,
} from '../../domain/openbanking/consents.ts';
import { hookCallFormat } from '../../domain/openbanking/hook-events.ts';
import { newIbanId } from '../../domain/openbanking/ids.ts';
import type {
  BankConsentCreated,
  BankConsentStart,
  HeldScaStep,
  StoredAccount,
} from '../../domain/openbanking/processes.ts';
import {
  type AccountDetails,
  type ConsentStatus,
  type EmbeddedScaInput,
  type EmbeddedScaStep,
  type OAuthScaPending,
  type PsuPresence,
  Xs2aErrorType,
} from '../../domain/openbanking/xs2a.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';
import { accountDetailsOf, readAccountData, recordRefreshError, refreshErrorOf } from './account-refresh.ts';
import { relayHeldStep } from './sca-secrets.ts';

/** The step the user gave, from its held fields (decision 0068). */
function heldStepOf(step: HeldScaStep['step'], fields: Record<string, string>): EmbeddedScaInput {
  return step === 'credentials'
    ? { psuId: fields.psuId ?? '', password: fields.password ?? '' }
    : { scaAuthenticationData: fields.scaAuthenticationData ?? '' };
}

/**
 * Activities of the consent process (workflows/openbanking/consent.ts): the bank consent at the bank
 * (XS2A), the consent's row in ob_consents, the accounts it grants read into the read model (after a
 * valid SCA), the consents requests it fulfils, and the signed hook event.
 */

/** A consent with its bank and whether its user was deleted; a consent that is not recorded fails for good. */
export async function consentWithBank(db: Database, consentId: string) {
  const [row] = await db
    .select({ consent: obConsents, bank: obBanks, userDeletedAt: obUsers.deletedAt })
    .from(obConsents)
    .innerJoin(obBanks, eq(obBanks.bankHash, obConsents.bankHash))
    .innerJoin(obUsers, eq(obUsers.id, obConsents.userId))
    .where(eq(obConsents.id, consentId));
  if (!row)
    throw ApplicationFailure.nonRetryable(`consent ${consentId} is not recorded`, 'ConsentNotRecorded');
  return row;
}

/** Live accounts (of a live user) a consent serves. */
export async function liveAccountsOf(db: Database, consentId: string) {
  return db
    .select({ account: obAccounts })
    .from(obAccounts)
    .innerJoin(obUsers, eq(obUsers.id, obAccounts.userId))
    .where(and(eq(obAccounts.consentId, consentId), isNull(obAccounts.deletedAt), isNull(obUsers.deletedAt)))
    .then((rows) => rows.map((row) => row.account));
}

/** A consent with its bank, for reading accounts: it must have a bank consent by now. */
async function consentToRead(db: Database, consentId: string) {
  const row = await consentWithBank(db, consentId);
  if (!row.consent.bankConsentId)
    throw ApplicationFailure.nonRetryable(`consent ${consentId} has no bank consent`, 'ConsentNotRecorded');
  return { ...row, bankConsentId: row.consent.bankConsentId };
}

/** Adds or re-links the account of a user to a consent; an IBAN keeps its ibanId across consents. */
async function upsertAccount(
  db: Database,
  consent: typeof obConsents.$inferSelect,
  details: AccountDetails,
): Promise<{ id: string; resourceId: string; iban: string; currency: string }> {
  const values = {
    agentId: consent.agentId,
    consentId: consent.id,
    ...accountDetailsOf(details),
    deletedAt: null,
  };
  const [row] = await db
    .insert(obAccounts)
    .values({
      id: newIbanId(),
      userId: consent.userId,
      bankHash: consent.bankHash,
      iban: details.iban,
      ...values,
    })
    .onConflictDoUpdate({
      target: [obAccounts.userId, obAccounts.bankHash, obAccounts.iban],
      set: values,
    })
    .returning({
      id: obAccounts.id,
      resourceId: obAccounts.resourceId,
      iban: obAccounts.iban,
      currency: obAccounts.currency,
    });
  await db
    .insert(obConsentAccounts)
    .values({ consentId: consent.id, accountId: row!.id })
    .onConflictDoNothing();
  return row!;
}

/**
 * Consents requests (cgate) are fulfilled by the consent flow: when a user's consent becomes valid, every
 * open request of that user whose banks include the consent's bank (or name no bank) and whose scopes the
 * consent covers is marked fulfilled with that consent. Call from the consent workflow's activity that
 * records the valid consent; idempotent (a repeated call changes nothing).
 */
export async function fulfilConsentsRequests(
  db: Database,
  consent: { userId: string; bankHash: string; consentId: string; scopes: readonly string[] },
): Promise<string[]> {
  const rows = await db
    .update(obConsentsRequests)
    .set({ status: 'fulfilled', consentId: consent.consentId, fulfilledAt: new Date() })
    .where(
      and(
        eq(obConsentsRequests.userId, consent.userId),
        eq(obConsentsRequests.status, 'open'),
        sql`(jsonb_array_length(${obConsentsRequests.banks}) = 0 or ${obConsentsRequests.banks} ? ${consent.bankHash})`,
        sql`${obConsentsRequests.scopes} <@ ${JSON.stringify(consent.scopes)}::jsonb`,
      ),
    )
    .returning({ id: obConsentsRequests.id });
  return rows.map((row) => row.id);
}

export function createConsentActivities(deps: ActivityDeps) {
  const { db, config, logger } = deps;

  return {
    /**
     * POST /v1/consents at the bank (redirect approach) with the gateway's callback as TPP-Redirect-URI.
     * Idempotent: a retry after the bank answered returns the recorded bank consent instead of creating
     * a second one.
     */
    async createBankConsent(input: BankConsentStart): Promise<BankConsentCreated> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      // Recorded already (a retry): the same bank consent (decoupled ones have no SCA page). An embedded
      // one is created again (its start link is not kept): the first stays unauthorised, moving nothing.
      // So is an OAuth2 one (its code_verifier is not kept, decision 0067).
      if (
        consent.bankConsentId &&
        !input.embedded &&
        !consent.bankTokenEndpoint &&
        (consent.scaRedirectUrl || input.psuId)
      )
        return {
          bankConsentId: consent.bankConsentId,
          scaRedirectUrl: consent.scaRedirectUrl,
          psuMessage: null,
        };
      const client = xs2aClientFor(bank, config, deps.fetch);
      const request = {
        access: accessOf({
          kind: consent.kind,
          scopes: consent.scopes as ConsentScope[],
          ibans: consent.requestedIbans,
        }),
        recurringIndicator: consent.recurring,
        validUntil: consent.validUntil,
        frequencyPerDay: consent.frequencyPerDay,
        combinedServiceIndicator: false,
      };
      if (input.embedded) {
        // Embedded (decision 0061): the gateway relays the user's steps on the bank's links.
        const embedded = await client.createEmbeddedConsent(request, input.psu);
        await db
          .update(obConsents)
          .set({
            bankConsentId: embedded.consentId,
            bankStatus: embedded.consentStatus,
            bankStatusCheckedAt: new Date(),
            updatedAt: new Date(),
          })
          .where(eq(obConsents.id, consent.id));
        return {
          bankConsentId: embedded.consentId,
          scaRedirectUrl: null,
          psuMessage: null,
          embeddedStartUrl: embedded.startAuthorisationUrl,
        };
      }
      // Decoupled: the bank asks the user (its PSU-ID) in its app; there is no page to send a browser to.
      const created = input.psuId
        ? { ...(await client.createDecoupledConsent(request, input.psuId, input.psu)), scaRedirectUrl: null }
        : {
            ...(await client.createConsent(
              request,
              { redirectUri: input.redirectUri, nokRedirectUri: input.nokRedirectUri },
              input.psu,
            )),
            psuMessage: null,
          };
      await db
        .update(obConsents)
        .set({
          bankConsentId: created.consentId,
          bankStatus: created.consentStatus,
          bankStatusCheckedAt: new Date(),
          scaRedirectUrl: created.scaRedirectUrl,
          // OAuth2 SCA: where the code is exchanged (the code_verifier stays in the workflow, sealed).
          ...('oauth' in created && created.oauth ? { bankTokenEndpoint: created.oauth.tokenEndpoint } : {}),
          updatedAt: new Date(),
        })
        .where(eq(obConsents.id, consent.id));
      return {
        bankConsentId: created.consentId,
        scaRedirectUrl: created.scaRedirectUrl,
        psuMessage: created.psuMessage,
        ...('oauth' in created && created.oauth ? { oauth: created.oauth } : {}),
      };
    },

    /**
     * One step of the consent's embedded SCA at the bank, on the link the bank gave (decision 0061). The
     * user's id, password and code are taken here from ob_sca_secrets by the step's reference (decision
     * 0068; a step given before it comes as it is), never written to the log.
     */
    async embeddedConsentStep(input: {
      consentId: string;
      href: string;
      step: EmbeddedScaInput | HeldScaStep;
      psu?: PsuPresence;
    }): Promise<EmbeddedScaStep> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      const bankConsentId = consent.bankConsentId;
      if (!bankConsentId) throw ApplicationFailure.nonRetryable('no bank consent', 'ConsentNotRecorded');
      const relay = (step: EmbeddedScaInput) =>
        xs2aClientFor(bank, config, deps.fetch).embeddedConsentStep(
          bankConsentId,
          input.href,
          step,
          input.psu,
        );
      const { step } = input;
      if (!('secretRef' in step)) return relay(step);
      return relayHeldStep(
        deps,
        { secretRef: step.secretRef, subject: scaSecretSubject.consent(consent.id) },
        (fields) => relay(heldStepOf(step.step, fields)),
      );
    },

    /**
     * OAuth2 SCA (decision 0067): the code the callback brought, exchanged at the bank's token endpoint
     * with the code_verifier; the tokens are stored encrypted beside the bank consent. The code and the
     * verifier pass through here only (sealed in the history, never written or logged). A code the bank
     * refuses fails for good (Xs2aConsentInvalid): the consent then stays unauthorised at the bank.
     */
    async exchangeBankAuthorisationCode(input: {
      consentId: string;
      code: string;
      oauth: OAuthScaPending;
    }): Promise<void> {
      const { bank } = await consentWithBank(db, input.consentId);
      const tokens = await xs2aClientFor(bank, config, deps.fetch).exchangeAuthorisationCode(
        input.oauth,
        input.code,
      );
      await storeBankTokens(db, config, input.consentId, tokens, input.oauth.tokenEndpoint);
    },

    /** GET /v1/consents/{id}/status after the callback; the bank, not the browser, says how SCA ended. */
    async readBankConsentStatus(input: { consentId: string }): Promise<ConsentStatus> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      if (!consent.bankConsentId)
        throw ApplicationFailure.nonRetryable('no bank consent', 'ConsentNotRecorded');
      const status = await xs2aClientFor(bank, config, deps.fetch).getConsentStatus(consent.bankConsentId);
      await db
        .update(obConsents)
        .set({ bankStatus: status, bankStatusCheckedAt: new Date(), updatedAt: new Date() })
        .where(eq(obConsents.id, consent.id));
      return status;
    },

    /**
     * DELETE /v1/consents/{id}: the gateway will not use the bank consent (SCA abandoned, one-shot list
     * read). A consent the bank no longer knows is already gone.
     */
    async terminateBankConsent(input: { consentId: string }): Promise<void> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      if (!consent.bankConsentId) return;
      try {
        await xs2aClientFor(bank, config, deps.fetch).deleteConsent(consent.bankConsentId);
      } catch (error) {
        if (xs2aErrorTypeOf(error) !== Xs2aErrorType.ConsentUnknown) throw error;
      }
      await db
        .update(obConsents)
        .set({ bankStatus: 'terminatedByTpp', bankStatusCheckedAt: new Date(), updatedAt: new Date() })
        .where(eq(obConsents.id, consent.id));
    },

    /** Writes how the consent flow ended; an ACTIVE consent fulfils the user's open consents requests. */
    async recordConsentOutcome(input: {
      consentId: string;
      status: ConsentOutcome;
      reason: string | null;
    }): Promise<void> {
      const now = new Date();
      const [consent] = await db
        .update(obConsents)
        .set({ status: input.status, statusReason: input.reason, finishedAt: now, updatedAt: now })
        .where(and(eq(obConsents.id, input.consentId), eq(obConsents.status, 'AWAITING_SCA')))
        .returning();
      if (consent?.status === 'ACTIVE' && consent.kind === 'ais') {
        await fulfilConsentsRequests(db, {
          userId: consent.userId,
          bankHash: consent.bankHash,
          consentId: consent.id,
          scopes: consent.scopes,
        });
      }
    },

    /**
     * The hook call of a finished consent, ready for sendWebhook: the hook's URL (or the user's signup
     * `webhookUrl` when no hook was given) with `state` as this delivery's URL parameter (the plain state
     * comes from the workflow's input; ob_consents stores only its digest), and the event signed as a compact JWS
     * with the gateway's published keys. Null when there is nowhere to call, or the hook does not want
     * `consent.finished`.
     */
    async prepareConsentWebhook(input: {
      consentId: string;
      /** The consent's state, from the workflow's input: the read model keeps only its digest. */
      state: string;
      status: ConsentOutcome;
      reason: string | null;
      accounts: StoredAccount[];
    }): Promise<WebhookRequest | null> {
      const [row] = await db
        .select({
          consent: obConsents,
          hook: obHooks,
          webhookUrl: obUsers.webhookUrl,
          webhookBodyFormat: obUsers.webhookBodyFormat,
        })
        .from(obConsents)
        .innerJoin(obUsers, eq(obUsers.id, obConsents.userId))
        .leftJoin(obHooks, eq(obHooks.hookHash, obConsents.hookHash))
        .where(and(eq(obConsents.id, input.consentId), isNull(obUsers.deletedAt)));
      if (!row) return null;
      const { consent, hook } = row;
      if (hook && !hook.events.includes('consent.finished')) return null;
      const target = hook?.url ?? row.webhookUrl;
      if (!target) return null;

      const eventId = `${consent.id}.finished`;
      const event: ConsentFinishedEvent = {
        iss: TOKEN_ISSUER,
        jti: eventId,
        iat: Math.floor((consent.finishedAt ?? new Date()).getTime() / 1000),
        type: 'consent.finished',
        state: input.state,
        consentId: consent.id,
        userId: consent.userId,
        bankHash: consent.bankHash,
        kind: consent.kind,
        status: input.status,
        bankStatus: consent.bankStatus,
        validUntil: consent.validUntil,
        accounts: input.accounts,
        reason: input.reason,
      };
      const { jws, kid } = await signJws(db, config, event);
      logger.debug({ consentId: consent.id, kid }, 'consent event signed');
      return {
        service: 'openbanking',
        ownerId: consent.agentId,
        // The hook's URL is the endpoint; `state` is this delivery's own (one endpoint per hook URL).
        url: target,
        urlParams: { state: input.state },
        eventType: 'consent.finished',
        eventId,
        subjectId: consent.id,
        payload: { jws, event: event as unknown as Record<string, unknown> },
        format: hookCallFormat(hook?.bodyFormat ?? row.webhookBodyFormat),
      };
    },

    /**
     * After a valid SCA: lists the consent's accounts at the bank and stores each with its balances and
     * transactions. A bank that refuses one account's data (429, consent scope) leaves that account
     * listed with its refresh error; an unavailable bank fails the attempt (the activity retries).
     * A consent the gateway ended meanwhile (its user was deleted) stores nothing.
     */
    async storeConsentAccounts(input: { consentId: string }): Promise<StoredAccount[]> {
      const { consent, bank, bankConsentId, userDeletedAt } = await consentToRead(db, input.consentId);
      if (userDeletedAt || consent.status === 'TERMINATED') return [];
      const client = await aisClientFor(deps, bank, consent);
      const listed = await client.listAccounts(bankConsentId);
      const stored: StoredAccount[] = [];
      for (const details of listed) {
        const account = await upsertAccount(db, consent, details);
        stored.push({ ibanId: account.id, iban: account.iban, currency: account.currency });
        try {
          await readAccountData(deps, client, bankConsentId, account, consent.scopes as ConsentScope[]);
        } catch (error) {
          const reason = refreshErrorOf(error);
          if (!reason || reason === 'bank_unavailable') throw error;
          logger.warn(
            { consentId: consent.id, ibanId: account.id, reason },
            'account data not read after SCA',
          );
          await recordRefreshError(db, account.id, reason);
        }
      }
      return stored;
    },

    /** A one-shot account-list consent: stores the enumerated accounts (IBAN, owner name) once. */
    async storeAccountList(input: { consentId: string }): Promise<number> {
      const { consent, bank, bankConsentId } = await consentToRead(db, input.consentId);
      const listed = await (await aisClientFor(deps, bank, consent)).listAccounts(bankConsentId);
      const listedAt = new Date();
      if (listed.length > 0)
        await db
          .insert(obListedAccounts)
          .values(
            listed.map((account) => ({
              consentId: consent.id,
              userId: consent.userId,
              bankHash: consent.bankHash,
              iban: account.iban,
              currency: account.currency,
              ownerName: account.ownerName ?? null,
              name: account.name ?? null,
              listedAt,
            })),
          )
          .onConflictDoNothing();
      return listed.length;
    },
  };
}
