import { proxyActivities } from '@temporalio/workflow';
import type { createNotificationKeyActivities } from '../../activities/lending/notification-key.ts';
import type { NotificationKeyRequest } from '../../domain/lending/sibling-processes.ts';

type NotificationKeyActivities = ReturnType<typeof createNotificationKeyActivities>;

// A notification waits for the key: two quick attempts, then the packet is refused (the gateway retries).
const { fetchCollectNotificationKey } = proxyActivities<NotificationKeyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '300 milliseconds', backoffCoefficient: 2, maximumAttempts: 2 },
});

/**
 * The collection gateway's notification key fetched (decisions 0045 and 0047): run when lending's
 * receiver has no key yet or a signature does not verify with the one it holds (a rotated key).
 */
export async function lendingNotificationKey(request: NotificationKeyRequest): Promise<string> {
  return fetchCollectNotificationKey(request);
}
