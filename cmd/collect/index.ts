import { createCollectActivities } from '../../activities/collect/index.ts';
import { answerMalformedInput, createCollectApi } from '../../api/collect/index.ts';
import { sealClearCardTokens } from '../../credentials/collect/card-tokens.ts';
import { sealClearRecipientIds } from '../../credentials/collect/recipient-ids.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import type { PlatformServiceModule } from '../service.ts';
import { watchStatementFolder } from './statement-folder.ts';

/** The payment-collection gateway: its API under /collect and its activities. */
export const collectService: PlatformServiceModule = {
  name: 'collect',
  api: {
    basePath: '/collect',
    mount: (app, basePath) => app.route(basePath, createCollectApi()),
    answerMalformed: answerMalformedInput('/collect'),
  },
  worker({ config, db, client, logger }) {
    let folder: { stop(): Promise<void> } | undefined;
    return {
      activities: createCollectActivities({ db, config, logger, temporal: client }),
      // The watched bank-statement folder (COLLECT_STATEMENT_DIR), once the workers poll.
      started: async () => {
        // Payout recipient ids and saved-card tokens an older release kept in clear are sealed now.
        const key = collectSecretKey(config);
        const sealed = (await sealClearRecipientIds(db, key)) + (await sealClearCardTokens(db, key));
        if (sealed > 0) logger.info({ kind: 'collect.backfill', sealed }, 'clear personal data sealed');
        const dir = config.COLLECT_STATEMENT_DIR;
        if (dir) {
          const deps = { db, config, temporal: client, logger };
          folder = watchStatementFolder(deps, { dir, intervalMs: config.COLLECT_STATEMENT_POLL_INTERVAL });
        }
      },
      close: async () => folder?.stop(),
    };
  },
};
