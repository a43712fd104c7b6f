import { ApplicationFailure } from '@temporalio/common';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obBanks, obConsents, obHooks, obUsers } from '../../db/schema/openbanking.ts';
import type {
  ConsentFinishedEvent,
  ConsentOutcome,
  ConsentScope,
} from '../../domain/openbanking/consents.ts';
import { accessOf } from '../../domain/openbanking/consents.ts';
import type { ConsentStatus } from '../../domain/openbanking/xs2a.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { StoredAccount } from './accounts.ts';
import { xs2aClientFor } from './banks.ts';
import { fulfilConsentsRequests } from './consents-requests.ts';
import { signJws, TOKEN_ISSUER } from './jws.ts';
import { type PsuPresence, xs2aErrorTypeOf } from './xs2a-client.ts';

/**
 * Plumbing of the consent + SCA workflow (workflows/openbanking/consent.ts): the bank consent at the
 * bank (XS2A), the consent's row in ob_consents, and the signed hook event.
 */

export interface ConsentActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  fetch?: typeof fetch;
}

export interface BankConsentStart {
  consentId: string;
  /** The gateway's callback `/openbanking/redirect/{app}/state/{state}` (approved) and its Nok variant. */
  redirectUri: string;
  nokRedirectUri: string;
  /** The user at the keyboard when POST consent was called. */
  psu?: PsuPresence;
}

export interface BankConsentCreated {
  bankConsentId: string;
  scaRedirectUrl: string;
}

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

export function createConsentActivities(deps: ConsentActivityDeps) {
  const { db, config, logger } = deps;

  return {
    /**
     * POST /v1/consents at the bank (redirect approach) with the gateway's callback as TPP-Redirect-URI.
     * Idempotent: a retry after the bank answered returns the recorded bank consent instead of creating
     * a second one.
     */
    async createBankConsent(input: BankConsentStart): Promise<BankConsentCreated> {
      const { consent, bank } = await consentWithBank(db, input.consentId);
      if (consent.bankConsentId && consent.scaRedirectUrl)
        return { bankConsentId: consent.bankConsentId, scaRedirectUrl: consent.scaRedirectUrl };
      const created = await xs2aClientFor(bank, config, deps.fetch).createConsent(
        {
          access: accessOf({
            kind: consent.kind,
            scopes: consent.scopes as ConsentScope[],
            ibans: consent.requestedIbans,
          }),
          recurringIndicator: consent.recurring,
          validUntil: consent.validUntil,
          frequencyPerDay: consent.frequencyPerDay,
          combinedServiceIndicator: false,
        },
        { redirectUri: input.redirectUri, nokRedirectUri: input.nokRedirectUri },
        input.psu,
      );
      await db
        .update(obConsents)
        .set({
          bankConsentId: created.consentId,
          bankStatus: created.consentStatus,
          bankStatusCheckedAt: new Date(),
          scaRedirectUrl: created.scaRedirectUrl,
          updatedAt: new Date(),
        })
        .where(eq(obConsents.id, consent.id));
      return { bankConsentId: created.consentId, scaRedirectUrl: created.scaRedirectUrl };
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
     * `webhookUrl` when no hook was given) with `state` as this delivery's URL parameter, and the event signed as a compact JWS
     * with the gateway's published keys. Null when there is nowhere to call, or the hook does not want
     * `consent.finished`.
     */
    async prepareConsentWebhook(input: {
      consentId: string;
      status: ConsentOutcome;
      reason: string | null;
      accounts: StoredAccount[];
    }): Promise<WebhookRequest | null> {
      const [row] = await db
        .select({ consent: obConsents, hook: obHooks, webhookUrl: obUsers.webhookUrl })
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
        state: consent.state,
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
        urlParams: { state: consent.state },
        eventType: 'consent.finished',
        eventId,
        subjectId: consent.id,
        payload: { jws, event: event as unknown as Record<string, unknown> },
        format: 'openbanking-jws',
      };
    },
  };
}
