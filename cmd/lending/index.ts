import { createLendingActivities, createSiblingCallActivities } from '../../activities/lending/index.ts';
import { createLendingApi } from '../../api/lending/index.ts';
import type { PlatformServiceModule } from '../service.ts';

/** The lending platform: its API under /lending; in a worker, its activities. */
export const lendingService: PlatformServiceModule = {
  name: 'lending',
  api: { basePath: '/lending', mount: (app, basePath) => app.route(basePath, createLendingApi()) },
  worker({ config, db, logger }) {
    const deps = { db, config, logger };
    return { activities: { ...createLendingActivities(deps), ...createSiblingCallActivities(deps) } };
  },
};
