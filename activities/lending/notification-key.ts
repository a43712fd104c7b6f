import { fetchNotificationKey } from '../../connectors/lending/collect-gateway.ts';
import type { NotificationKeyRequest } from '../../domain/lending/sibling-processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * The collection gateway's published notification key (decisions 0045, 0047), fetched here so that the
 * notification receiver (application/lending/collect-notifications.ts) never calls the gateway itself:
 * it keeps the key in memory and asks for it again only when a signature does not verify with it.
 */
export function createNotificationKeyActivities({ config }: ActivityDeps) {
  return {
    /** The key as published (SPKI PEM): a public key, safe in the workflow's history. */
    async fetchCollectNotificationKey(request: NotificationKeyRequest): Promise<string> {
      return fetchNotificationKey(request.gatewayUrl, config.LENDING_COLLECT_REQUEST_TIMEOUT);
    },
  };
}
