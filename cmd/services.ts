import { collectService } from './collect/index.ts';
import { lendingService } from './lending/index.ts';
import { messagingService } from './messaging/index.ts';
import { openBankingService } from './openbanking/index.ts';
import type { PlatformServiceModule } from './service.ts';
import { webhookEngine } from './webhooks/index.ts';

/**
 * The services the platform runs, in one list: the API mounts each one's app, every worker registers
 * each one's activities (a name registered by two services stops the worker, see mergeActivities) and
 * starts what each runs beside them. Adding a service: its folders in each layer, one line here, its
 * workflows in workflows/index.ts and its configuration in platform/config.ts.
 */
export const platformServices: readonly PlatformServiceModule[] = [
  messagingService,
  collectService,
  openBankingService,
  lendingService,
  webhookEngine,
];
