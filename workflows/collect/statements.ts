import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { CollectActivities } from '../../activities/collect/index.ts';
import type {
  StatementImportInput,
  StatementImportSummary,
} from '../../domain/collect/statement-matching.ts';

const { matchStatementCredits, completeStatementImport } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// A batch pays up to COLLECT_STATEMENT_SETTLE_BATCH obligations; it heartbeats after each one.
const { settleStatementCredits } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One bank statement, keyed by its id (`statement-import-<statementId>`): its credits, stored when the
 * document was received, are matched to obligations, then each matched obligation is paid through its
 * own workflow, a batch at a time, until none is left; the rest wait in the review list.
 */
export async function statementImport(input: StatementImportInput): Promise<StatementImportSummary> {
  await matchStatementCredits(input);
  for (;;) {
    // The statement's id only (the batch size is the worker's configuration): no payload grows with it.
    const { remaining } = await settleStatementCredits(input);
    if (remaining === 0) break;
    // A statement of many thousands of credits keeps its history short.
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof statementImport>(input);
  }
  return completeStatementImport(input);
}
