import {
  enrolAgent as enrolAgentCredentials,
  type IssuedAgent,
  issueAdminHash as issueAdminCredential,
} from '../../credentials/openbanking/identity.ts';
import {
  type PublishedJwk,
  publishedJwks,
  rotateSigningKey as rotateKey,
} from '../../credentials/openbanking/jws.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * Agents, operators and the gateway's signing keys: enrolling an agent (POST signup/agent, the admin
 * endpoint and command), issuing an admin hash, rotating the signing key and publishing the key set.
 * How the hashes and keys are made and stored: credentials/openbanking/.
 */

/** Enrols an agent with its agent hash and public hash (shown once). */
export const enrolAgent = (
  deps: UseCaseDeps,
  agent: { name: string; email?: string | undefined },
): Promise<IssuedAgent> => enrolAgentCredentials(deps.db, agent);

/** Issues an operator's admin hash (x-admin-hash). */
export const issueAdminHash = (deps: UseCaseDeps, { label }: { label?: string | undefined } = {}) =>
  issueAdminCredential(deps.db, label);

/** Makes a new signing key current; the previous one stays published for OPENBANKING_SIGNING_KEY_RETENTION. */
export const rotateSigningKey = (deps: UseCaseDeps) => rotateKey(deps.db, deps.config);

/** The public keys that verify the gateway's user tokens and signed webhook payloads. */
export const publishedKeys = (deps: UseCaseDeps): Promise<{ keys: PublishedJwk[] }> =>
  publishedJwks(deps.db, deps.config);
