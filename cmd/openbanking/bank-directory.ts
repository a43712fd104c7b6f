import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { createBankDirectoryActivities } from '../../activities/openbanking/bank-directory.ts';
import type { Database } from '../../db/client.ts';
import { bankDirectoryScheduleId } from '../../domain/openbanking/processes.ts';
import { PlatformService } from '../../domain/search-attributes.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';

/**
 * Starts the open-banking bank directory with a worker: one synchronous sync (so the banks are in
 * ob_banks before the API's first request) and the `ob-bank-directory@<task queue>` schedule that runs
 * `refreshBankDirectory` every OPENBANKING_BANK_REFRESH_INTERVAL, triggered once at start for the
 * maintenance notices. Idempotent: every worker of a deployment calls it; the interval is updated when
 * the configuration changed.
 */
export async function startBankDirectory(options: {
  client: Client;
  db: Database;
  config: Config;
  logger: Logger;
}): Promise<void> {
  const { client, config, logger } = options;
  const sync = await createBankDirectoryActivities({ db: options.db, config, logger }).syncBankDirectory();
  logger.info(
    { banks: sync.bankHashes.length, directoryError: sync.directoryError },
    'bank directory synchronised',
  );

  const scheduleId = bankDirectoryScheduleId(config.TEMPORAL_TASK_QUEUE);
  const spec = { intervals: [{ every: config.OPENBANKING_BANK_REFRESH_INTERVAL }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'refreshBankDirectory',
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    args: [] as [],
    workflowExecutionTimeout: Math.max(config.OPENBANKING_BANK_REFRESH_INTERVAL, 10 * 60_000),
    typedSearchAttributes: [{ key: PlatformService, value: 'openbanking' }],
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      state: {
        triggerImmediately: true,
        note: 'Bank directory and maintenance notices (docs/openbanking.md)',
      },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(scheduleId);
    await handle.update((previous) => ({ ...previous, spec, action }));
    await handle.trigger(ScheduleOverlapPolicy.SKIP);
  }
}

/** Removes the schedule (isolated test platforms, so a finished test leaves nothing firing). */
export async function deleteBankDirectorySchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.getHandle(bankDirectoryScheduleId(taskQueue)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}
