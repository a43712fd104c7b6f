import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import {
  accessTokenExpired,
  type Xs2aBank,
  type Xs2aClient,
  xs2aClientFor,
} from '../../connectors/openbanking/xs2a-client.ts';
import type { Database } from '../../db/client.ts';
import { obConsents } from '../../db/schema/openbanking.ts';
import type { BankTokens } from '../../domain/openbanking/xs2a.ts';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';

/**
 * A consent's tokens at a bank that runs OAuth2 as SCA approach (decision 0067): the gateway must use
 * them (Authorization: Bearer on the reads, the refresh token for a new access token), so they are
 * encrypted at rest, not hashed: AES-256-GCM (credentials/shared/secret-box.ts) bound to the consent's
 * row and the token's kind, with a key derived from OPENBANKING_KEY_ENCRYPTION_KEY (required in
 * production; a development key otherwise), as the users' identity references are.
 */
const keyOf = (config: Pick<Config, 'OPENBANKING_KEY_ENCRYPTION_KEY'>) =>
  createHash('sha256')
    .update(`ob-bank-token:${config.OPENBANKING_KEY_ENCRYPTION_KEY ?? 'development key, not a secret'}`)
    .digest();

type TokenKind = 'access' | 'refresh';
const boundTo = (consentId: string, kind: TokenKind) => `ob_consents.bank_${kind}_token:${consentId}`;

/** A new access token is fetched this long before the old one expires (clock skew, request time). */
const EXPIRY_MARGIN_MS = 30_000;

/** Writes the bank's tokens of a consent, encrypted, with the access token's expiry. */
export async function storeBankTokens(
  db: Database,
  config: Config,
  consentId: string,
  tokens: BankTokens,
  tokenEndpoint?: string,
): Promise<void> {
  const key = keyOf(config);
  await db
    .update(obConsents)
    .set({
      ...(tokenEndpoint ? { bankTokenEndpoint: tokenEndpoint } : {}),
      bankAccessTokenSealed: sealSecret(key, boundTo(consentId, 'access'), tokens.accessToken),
      bankRefreshTokenSealed: tokens.refreshToken
        ? sealSecret(key, boundTo(consentId, 'refresh'), tokens.refreshToken)
        : null,
      bankTokenExpiresAt:
        tokens.expiresInSeconds === null ? null : new Date(Date.now() + tokens.expiresInSeconds * 1000),
      updatedAt: new Date(),
    })
    .where(eq(obConsents.id, consentId));
}

/**
 * The bank connector for a consent's account-information reads: with its access token when the bank
 * runs OAuth2 SCA, refreshed first when it is about to expire (or, when the bank answers 401
 * TOKEN_EXPIRED early, by the connector before it reads again once). An expired token without a refresh token
 * (or one the bank refuses) is Xs2aConsentInvalid: the consent needs a new SCA, as when the bank
 * refuses the consent itself (the refreshes then mark it REVOKED, the user adds the account again).
 */
export async function aisClientFor(
  deps: { db: Database; config: Config; fetch?: typeof fetch },
  bank: Xs2aBank,
  consent: Pick<
    typeof obConsents.$inferSelect,
    'id' | 'bankTokenEndpoint' | 'bankAccessTokenSealed' | 'bankRefreshTokenSealed' | 'bankTokenExpiresAt'
  >,
): Promise<Xs2aClient> {
  const { db, config } = deps;
  if (!consent.bankAccessTokenSealed) return xs2aClientFor(bank, config, deps.fetch);
  const key = keyOf(config);
  const open = (kind: TokenKind, stored: string) =>
    openSecret(key, boundTo(consent.id, kind), stored, `bank ${kind} token of consent ${consent.id}`);
  const { bankRefreshTokenSealed, bankTokenEndpoint } = consent;
  // A new access token for the refresh token, stored (encrypted) for the next reads.
  const renew =
    bankRefreshTokenSealed && bankTokenEndpoint
      ? async () => {
          const tokens = await xs2aClientFor(bank, config, deps.fetch).refreshAccessToken(
            bankTokenEndpoint,
            config.OPENBANKING_TPP_CLIENT_ID,
            open('refresh', bankRefreshTokenSealed),
          );
          await storeBankTokens(db, config, consent.id, tokens);
          return tokens.accessToken;
        }
      : undefined;
  const fresh =
    !consent.bankTokenExpiresAt || consent.bankTokenExpiresAt.getTime() - EXPIRY_MARGIN_MS > Date.now();
  if (!fresh && !renew) throw accessTokenExpired('read account information');
  // The bank may still end a token early (401 TOKEN_EXPIRED): the client renews it and reads again once.
  const accessToken = fresh ? open('access', consent.bankAccessTokenSealed) : await renew!();
  return xs2aClientFor(bank, config, deps.fetch, { accessToken, ...(renew ? { renew } : {}) });
}
