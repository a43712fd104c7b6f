import { dropScaSecrets, holdScaSecrets } from '../../credentials/openbanking/sca-secrets.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * Sends an embedded SCA step to its workflow without its secret fields (decision 0068): they are sealed
 * into ob_sca_secrets for OPENBANKING_SCA_SECRET_TTL and `send` gets only the reference, which the
 * activity calling the bank takes them by. Once the workflow has answered, the entry goes whatever
 * became of it (taken already, or never: the step was refused before the bank was called).
 */
export async function sendHeldScaStep<T>(
  deps: UseCaseDeps,
  subject: string,
  fields: Record<string, string>,
  send: (secretRef: string) => Promise<T>,
): Promise<T> {
  const { db, config, logger } = deps;
  const secretRef = await holdScaSecrets(db, config, subject, fields, config.OPENBANKING_SCA_SECRET_TTL);
  try {
    return await send(secretRef);
  } finally {
    // Not deleted now (the database failed): it expires and the next step's write purges it.
    await dropScaSecrets(db, secretRef).catch((error: unknown) =>
      logger.warn({ err: error }, 'a held SCA step is left to expire'),
    );
  }
}
