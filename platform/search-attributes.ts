import type { Connection } from '@temporalio/client';
import { platformSearchAttributes } from '../domain/search-attributes.ts';
import type { Logger } from './logger.ts';

const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

/**
 * Registers the platform's custom search attributes on the namespace when they are missing, so that
 * a fresh cluster needs no manual step (workflows cannot start while one is unknown to the namespace).
 * Where the operator API is not allowed (e.g. a managed cloud), it stops with a message saying what
 * to register by hand.
 */
export async function ensureSearchAttributes(
  connection: Pick<Connection, 'operatorService'>,
  namespace: string,
  logger: Logger,
): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = platformSearchAttributes
    .map((key) => key.name)
    .filter((name) => !(name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])),
    });
    logger.info({ namespace, added: missing }, 'registered search attributes');
  } catch (error) {
    // Another process (api and worker start together) may have added them a moment earlier.
    const again = await connection.operatorService.listSearchAttributes({ namespace });
    if (missing.every((name) => name in (again.customAttributes ?? {}))) return;
    throw new Error(
      `Search attributes ${missing.join(', ')} (Keyword) are not registered on namespace "${namespace}" and ` +
        `could not be added (${(error as Error).message}). Register them, e.g. ` +
        `\`temporal operator search-attribute create --namespace ${namespace} --name <Name> --type Keyword\`.`,
    );
  }
}
