import {
  type ApplicationFailure,
  allHandlersFinished,
  condition,
  executeChild,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import { type BulkState, batchesOf } from '../../domain/openbanking/bulk-payments.ts';
import { statusOfTransaction, type TransactionStatus } from '../../domain/openbanking/payments.ts';
import {
  type BulkBatchInput,
  type BulkPaymentInput,
  type BulkScaStart,
  BulkStartRefusal,
  bulkBatchWorkflowId,
  bulkCallbackSignal,
  bulkStartedUpdate,
} from '../../domain/openbanking/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { bankStartRefusal } from './bank-refusal.ts';

// Read-model steps; a step lost with its worker is tried again after its timeout, so it is short.
const activities = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Steps that call the bank: one bank request (OPENBANKING_BANK_REQUEST_TIMEOUT) and one statement. */
const bankSteps = (bankRequestTimeoutMs: number) =>
  proxyActivities<OpenBankingActivities>({
    startToCloseTimeout: bankRequestTimeoutMs + 10_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

/** Batches recorded at the same time (each is one bank call and one statement). */
const PARALLEL_BATCHES = 4;

/**
 * One bulk payment (`ob-bulk-<bulkId>`): create the bank bulk with every entry → hand the bank's SCA
 * page to the caller → wait for the user to authorise the whole bulk once (or give up at the SCA
 * deadline) → wait while the bank executes it → record the entries' outcomes a batch at a time, one
 * child workflow per batch (`ob-bulk-batch-<bulkId>-<n>`) → the overall state → the hook.
 *
 * The workflow carries ids and seq ranges only; the entries are in PostgreSQL. A bulk of 10,000
 * entries in batches of 500 is 20 children: a few hundred history events here, a dozen in each child.
 */
export async function bulkPayment(input: BulkPaymentInput): Promise<BulkState> {
  let sca: BulkScaStart | undefined;
  let startFailure: ApplicationFailure | undefined;
  let failureRecorded = false;
  let calledBack = false;

  setHandler(bulkStartedUpdate, async () => {
    // A refusal is answered once the read model says FAILED, so the caller reads what it was told.
    await condition(() => sca !== undefined || (startFailure !== undefined && failureRecorded));
    if (startFailure) throw startFailure;
    return sca!;
  });
  // Only the first callback counts; the bank, not the browser, says how the SCA ended.
  setHandler(bulkCallbackSignal, () => {
    calledBack = true;
  });

  const finish = async (recorded?: () => void): Promise<BulkState> => {
    const { status } = await activities.finishBulk({ bulkId: input.bulkId });
    upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
    recorded?.();
    const webhook = await activities.prepareBulkWebhook({ bulkId: input.bulkId, state: input.state });
    if (webhook) await sendWebhook(webhook);
    await condition(allHandlersFinished);
    return status;
  };
  const failAll = async (state: 'REJECTED' | 'EXPIRED' | 'FAILED', reason: string) => {
    await activities.failBulkEntries({ bulkId: input.bulkId, state, reason });
    return finish();
  };

  // 1. The bank bulk, and the SCA page the user is sent to.
  try {
    sca = await bankStarter(input).initiateBankBulk({
      bulkId: input.bulkId,
      redirectUri: input.redirectUri,
      nokRedirectUri: input.nokRedirectUri,
      ...(input.psu ? { psu: input.psu } : {}),
    });
  } catch (error) {
    startFailure = bankStartRefusal(error, 'the bank bulk', {
      refused: BulkStartRefusal.bankRefused,
      unavailable: BulkStartRefusal.bankUnavailable,
    });
    await activities.failBulkEntries({ bulkId: input.bulkId, state: 'FAILED', reason: startFailure.message });
    return finish(() => {
      failureRecorded = true;
    });
  }

  // 2. One SCA for the whole bulk, at the bank. Past the deadline the bank bulk is cancelled, so it can
  // no longer be authorised behind our back; a user who approved at the last moment still counts.
  const bank = bankSteps(input.bankRequestTimeoutMs);
  const remainingMs = Date.parse(input.scaDeadline) - Date.now();
  const inTime = remainingMs > 0 && (await condition(() => calledBack, remainingMs));
  let bankStatus = inTime
    ? await bank.readBankBulkStatus({ bulkId: input.bulkId })
    : await bank.cancelBankBulk({ bulkId: input.bulkId });
  if (!inTime && bankStatus === 'CANC')
    return failAll('EXPIRED', 'the user did not authorise the bulk at the bank in time');

  // 3. The bank executes the authorised bulk; its status says when it is done.
  // Cancelled (the user refused) or still only received (the SCA did not succeed): nothing was paid.
  if (bankStatus === 'CANC' || bankStatus === 'RCVD')
    return failAll('REJECTED', `the bulk was not authorised at the bank (${bankStatus})`);
  await activities.markBulkProcessing({ bulkId: input.bulkId });
  upsertSearchAttributes([{ key: BusinessStatus, value: 'PROCESSING' }]);
  for (let waitMs = input.pollIntervalMs; !executed(bankStatus); waitMs = Math.min(2 * waitMs, 3_600_000)) {
    await sleep(waitMs);
    bankStatus = await bank.readBankBulkStatus({ bulkId: input.bulkId });
  }

  // 4. Each entry's outcome, a batch at a time (one failing entry never fails the others).
  const batches = batchesOf(input.entryCount, input.batchSize);
  for (let i = 0; i < batches.length; i += PARALLEL_BATCHES) {
    await Promise.all(
      batches.slice(i, i + PARALLEL_BATCHES).map((batch) =>
        executeChild(bulkBatch, {
          workflowId: bulkBatchWorkflowId(input.bulkId, batch.index),
          args: [{ bulkId: input.bulkId, ...batch, bankRequestTimeoutMs: input.bankRequestTimeoutMs }],
          typedSearchAttributes: workflowInfo().typedSearchAttributes,
          staticSummary: `Batch ${batch.index} (entries ${batch.fromSeq}–${batch.toSeq - 1}) of bulk ${input.bulkId}`,
        }),
      ),
    );
  }
  return finish();
}

/** One batch of a bulk's entries: their outcomes read from the bank in one call and recorded at once. */
export async function bulkBatch(input: BulkBatchInput) {
  return bankSteps(input.bankRequestTimeoutMs).recordBulkBatch(input);
}

/** The bank has finished with the bulk: settled (ACSC), partly (PART) or all rejected (RJCT). */
function executed(status: TransactionStatus): boolean {
  return status === 'PART' || statusOfTransaction(status) !== 'WAITING';
}

/** The bank bulk is created while the API waits: few, short attempts. */
function bankStarter(input: BulkPaymentInput) {
  return proxyActivities<OpenBankingActivities>({
    startToCloseTimeout: input.bankRequestTimeoutMs + 10_000,
    scheduleToCloseTimeout: 2 * input.bankRequestTimeoutMs + 30_000,
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  });
}
