import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';
import { lendingDataKey } from './personal-data.ts';

/**
 * The body of a lending e-mail carries a one-time code (a password reset link), so lending_email_outbox
 * holds it sealed until it is sent: AES-256-GCM (credentials/shared/secret-box.ts) with the key of
 * lending's data at rest (LENDING_DATA_KEY), bound to the outbox row, and forgotten once sent.
 */
type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

const boundTo = (messageId: string) => `lending_email_outbox.body:${messageId}`;

export const sealMailBody = (config: KeyConfig, messageId: string, body: string) =>
  sealSecret(lendingDataKey(config), boundTo(messageId), body);

export const openMailBody = (config: KeyConfig, messageId: string, sealed: string) =>
  openSecret(lendingDataKey(config), boundTo(messageId), sealed, 'lending e-mail body');
