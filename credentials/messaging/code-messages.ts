import { createHash, createHmac } from 'node:crypto';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';
import { webhookSecretKey } from '../webhooks/signing-secrets.ts';

/**
 * Messages flagged `containsCode` (POST /sms, POST /chatapp) carry a one-time code, so the read model
 * keeps only their masked text (domain/messaging/code-messages.ts) and, to hold an Idempotency-Key to
 * the whole request, a keyed digest of the text: HMAC-SHA-256 with a key derived from the platform's
 * WEBHOOK_SECRET_KEY (required in production; a development key otherwise). A plain hash would give a
 * six-digit code away to anyone trying the million candidates.
 */
const digestKeyOf = (config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'PLATFORM_MODE'>) =>
  createHash('sha256').update('messaging-code-message:').update(webhookSecretKey(config)).digest();

/** The stored form of a flagged message's text, bound to the account. */
export const codeMessageDigest = (
  config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'PLATFORM_MODE'>,
  accountId: string,
  text: string,
) => createHmac('sha256', digestKeyOf(config)).update(`${accountId}\u0000${text}`).digest('hex');

const sealKeyOf = (config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'PLATFORM_MODE'>) =>
  createHash('sha256').update('messaging-outbox-text:').update(webhookSecretKey(config)).digest();

/**
 * A flagged message's text while it waits in the outbox for its workflow (decision 0066): sealed,
 * bound to the message, deleted at hand-over; the workflow's input then holds it, sealed by the
 * platform's payload codec.
 */
export const sealCodeMessage = (
  config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'PLATFORM_MODE'>,
  messageId: string,
  text: string,
) => sealSecret(sealKeyOf(config), `messaging-outbox:${messageId}`, text);

export const openCodeMessage = (
  config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'PLATFORM_MODE'>,
  messageId: string,
  sealed: string,
) => openSecret(sealKeyOf(config), `messaging-outbox:${messageId}`, sealed, 'outbox message text');
