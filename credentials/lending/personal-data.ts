import { createHash, createHmac } from 'node:crypto';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret, secretBoxKey } from '../shared/secret-box.ts';

/**
 * Customers' national ids (ssn, driverLicenseId) are personal data the platform must read back, so they
 * are encrypted at rest, not hashed: AES-256-GCM (credentials/shared/secret-box.ts) bound to the
 * customer's row and field, with a key from LENDING_DATA_KEY (a development key outside production).
 * Management/Customers/Search finds them by a keyed digest (HMAC-SHA-256 of the tenant and the
 * normalised id), so equal ids are findable without decrypting every row, and a leaked table does not
 * give the ids away to a dictionary attack without the key.
 */
const DEVELOPMENT_KEY_SEED = 'integration-platform lending development data key';

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

export type NationalIdField = 'ssn' | 'driverLicenseId';

/** The AES-256-GCM key of lending's data at rest (LENDING_DATA_KEY; a development key outside production). */
export const lendingDataKey = (config: KeyConfig) =>
  secretBoxKey(config.LENDING_DATA_KEY, config.PLATFORM_MODE, 'LENDING_DATA_KEY', DEVELOPMENT_KEY_SEED);
const boxKeyOf = lendingDataKey;

/** The digest key is derived from the box key, so one configured key serves both. */
const digestKeyOf = (config: KeyConfig) =>
  createHash('sha256').update('lending-search-digest:').update(boxKeyOf(config)).digest();

const boundTo = (customerId: string, field: NationalIdField) => `lending_customers.${field}:${customerId}`;

export const sealNationalId = (
  config: KeyConfig,
  customerId: string,
  field: NationalIdField,
  value: string,
) => sealSecret(boxKeyOf(config), boundTo(customerId, field), value);

export const openNationalId = (
  config: KeyConfig,
  customerId: string,
  field: NationalIdField,
  stored: string,
) => openSecret(boxKeyOf(config), boundTo(customerId, field), stored, field);

/** The search digest of an already normalised id (domain/lending/customers.ts normalizeNationalId). */
export const nationalIdDigest = (
  config: KeyConfig,
  tenantId: string,
  field: NationalIdField,
  normalized: string,
) =>
  createHmac('sha256', digestKeyOf(config))
    .update(`${tenantId}\u0000${field}\u0000${normalized}`)
    .digest('hex');
