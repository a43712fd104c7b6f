import { createCollectActivities } from '../../activities/collect/index.ts';
import { answerMalformedInput, createCollectApi } from '../../api/collect/index.ts';
import type { PlatformServiceModule } from '../service.ts';

/** The payment-collection gateway: its API under /collect and its activities. */
export const collectService: PlatformServiceModule = {
  name: 'collect',
  api: {
    basePath: '/collect',
    mount: (app, basePath) => app.route(basePath, createCollectApi()),
    answerMalformed: answerMalformedInput('/collect'),
  },
  worker: ({ config, db, logger }) => ({ activities: createCollectActivities({ db, config, logger }) }),
};
