import { createOpenBankingActivities } from '../../activities/openbanking/index.ts';
import { createOpenBankingApi } from '../../api/openbanking/index.ts';
import type { PlatformServiceModule } from '../service.ts';
import { startBankDirectory } from './bank-directory.ts';

/**
 * The open-banking gateway: its API under /openbanking; in a worker, its activities and, once the
 * workers poll, the bank directory (banks known before the first request, refreshed on a schedule).
 */
export const openBankingService: PlatformServiceModule = {
  name: 'openbanking',
  api: { basePath: '/openbanking', mount: (app, basePath) => app.route(basePath, createOpenBankingApi()) },
  worker: ({ config, db, client, logger }) => ({
    activities: createOpenBankingActivities({ db, config, logger }),
    started: () =>
      startBankDirectory({ client, db, config, logger }).catch((error: unknown) =>
        logger.error({ err: error }, 'bank directory not started'),
      ),
  }),
};
