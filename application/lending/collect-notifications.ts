import { createHash } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { collectGatewayUrl } from '../../connectors/lending/collect-gateway.ts';
import { loadCollectMerchant } from '../../credentials/lending/collect-merchants.ts';
import {
  checksumMatches,
  type NotificationLine,
  type NotificationReply,
  notificationReplyBody,
  parseNotification,
  signatureMatches,
} from '../../domain/epay-merchant.ts';
import { parsePayoutInvoice } from '../../domain/lending/disbursement.ts';
import {
  loanWorkflowId,
  payoutNotificationSignal,
  repaymentNotificationSignal,
} from '../../domain/lending/loan-process.ts';
import { parseCardInvoice, parseSubmissionInvoice } from '../../domain/lending/repayment-submissions.ts';
import { notificationKeyWorkflowId } from '../../domain/lending/sibling-processes.ts';
import { PlatformService } from '../../domain/search-attributes.ts';
import type { lendingNotificationKey } from '../../workflows/lending/notification-key.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { type CardNotice, cardFailed, cardSaved } from './cards.ts';
import { findLoan } from './loan/record.ts';
import { findSubmission, recordReversalAfterEnd } from './loan/submissions.ts';

/**
 * The lending tenant's merchant notification receiver (decisions 0041, 0045): the collection gateway
 * POSTs the status of the tenant's INVOICEs — cash payouts, cards saved on its card page (`LC-…`),
 * repayments charged or paid by bank transfer (`LR-…`) — to `/lending/collect/notifications/{tenantId}`
 * (the notify URL of the tenant's merchant; api/lending/collect-notifications.ts), exactly as to any merchant (docs/collect.md, "Merchant
 * notifications"). Outside the spec's PublicApi tree: the caller is the gateway, not a tenant's key.
 *
 * 1. CHECKSUM is the HMAC-SHA1 of ENCODED with the tenant's merchant secret (constant time), and
 *    SIGNATURE verifies with the gateway's published key (held in memory; fetched by the notification-key
 *    workflow's activity when none is held, and again once when it does not verify: a rotated key); else the whole packet is answered `ERR=...` and nothing changes.
 * 2. One reply line per invoice: `OK` when the loan has the news (a Signal to its workflow, which
 *    ignores a repeated one) or the card is updated (lending's own table, idempotently), `NO` for an
 *    INVOICE that is none of this tenant's, `ERR` when Temporal cannot take it now (the gateway retries).
 *    A repayment's `REVERSED` (decision 0069) is taken back by the loan's workflow; when that workflow has
 *    ended, it is put on record for an operator (recordReversalAfterEnd) and answered OK.
 */

/** The gateway's notification key, kept between POSTs (fetched again when a signature fails). */
let notificationKey: { url: string; pem: string; fetchedAt: number } | undefined;
/** A key fetched this recently is not fetched again for a failing signature. */
const KEY_REFRESH_MS = 5_000;

/**
 * Fetches the gateway's key through the notification-key workflow, whose activity makes the HTTP call
 * (decision 0047); notifications missing the key together share one fetch.
 */
async function fetchKey(deps: Pick<UseCaseDeps, 'temporal' | 'config'>, gatewayUrl: string): Promise<string> {
  const gatewayId = createHash('sha256').update(gatewayUrl).digest('hex').slice(0, 16);
  const pem = await deps.temporal.workflow.execute<typeof lendingNotificationKey>('lendingNotificationKey', {
    workflowId: notificationKeyWorkflowId(gatewayId),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowExecutionTimeout: '1 minute',
    args: [{ gatewayUrl }],
    typedSearchAttributes: [{ key: PlatformService, value: 'lending' }],
    staticSummary: 'The collection gateway’s notification key',
  });
  notificationKey = { url: gatewayUrl, pem, fetchedAt: Date.now() };
  return pem;
}

/**
 * Verifies SIGNATURE with the key held in memory; the key is fetched (by an activity) only when none is
 * held for this gateway, or when the signature fails with one not fetched just now (a rotated key).
 */
async function signatureValid(
  deps: Pick<UseCaseDeps, 'temporal' | 'config'>,
  encoded: string,
  signature: string,
): Promise<boolean> {
  const gateway = collectGatewayUrl(deps.config);
  const held = notificationKey?.url === gateway ? notificationKey : undefined;
  const first = held?.pem ?? (await fetchKey(deps, gateway));
  if (signatureMatches(first, encoded, signature)) return true;
  if (!held || Date.now() - held.fetchedAt < KEY_REFRESH_MS) return false;
  return signatureMatches(await fetchKey(deps, gateway), encoded, signature);
}

/**
 * Hands a verified line to the loan's workflow as a Signal: OK, or ERR when Temporal cannot take it now;
 * `ended` runs when the workflow has ended (then OK).
 */
async function signalLoan(
  deps: UseCaseDeps,
  tenantId: string,
  loanId: string,
  signal: typeof payoutNotificationSignal | typeof repaymentNotificationSignal,
  line: NotificationLine,
  ended?: () => Promise<void>,
): Promise<NotificationReply> {
  try {
    await deps.temporal.workflow.getHandle(loanWorkflowId(tenantId, loanId)).signal(signal, {
      invoice: line.invoice,
      status: line.status,
      ...(line.payTime ? { payTime: line.payTime } : {}),
    });
    return 'OK';
  } catch (error) {
    // The loan's workflow has ended (a closed loan): nothing left to change in it.
    if (error instanceof WorkflowNotFoundError) {
      const recorded = await ended?.().then(
        () => true,
        (failure: unknown) => {
          deps.logger.warn(
            { err: failure, tenantId, invoice: line.invoice },
            'notification not put on record',
          );
          return false;
        },
      );
      return recorded === false ? 'ERR' : 'OK';
    }
    deps.logger.warn(
      { err: error, tenantId, invoice: line.invoice },
      'collection notification not delivered to the loan',
    );
    return 'ERR';
  }
}

/** A card's verification (`LC-<cardId>`, decision 0045): saved → active, declined or expired → failed. */
async function receiveCardLine(
  deps: UseCaseDeps,
  tenantId: string,
  cardId: string,
  line: NotificationLine,
): Promise<NotificationReply> {
  let notice: CardNotice;
  if (line.card && (line.status === 'SAVED' || line.status === 'PAID'))
    notice = await cardSaved(deps.db, deps.config, tenantId, cardId, line.card);
  else if (line.status === 'DENIED' || line.status === 'EXPIRED')
    notice = await cardFailed(
      deps.db,
      tenantId,
      cardId,
      line.status === 'EXPIRED' ? 'the card page expired before the card was saved' : 'the card was declined',
    );
  else notice = await cardFailed(deps.db, tenantId, cardId, 'the gateway saved no card');
  return notice === 'unknown' ? 'NO' : 'OK';
}

/** What one line does: a card saved, a submitted repayment's money, or the loan's payout. */
async function receiveLine(
  deps: UseCaseDeps,
  tenantId: string,
  line: NotificationLine,
): Promise<NotificationReply> {
  const cardId = parseCardInvoice(line.invoice);
  if (cardId) return receiveCardLine(deps, tenantId, cardId, line);
  const submissionId = parseSubmissionInvoice(line.invoice);
  if (submissionId) {
    const submission = await findSubmission(deps.db, tenantId, submissionId);
    if (!submission) return 'NO';
    // A payment taken back from a loan whose workflow has ended: on record for an operator (decision 0069).
    const ended =
      line.status === 'REVERSED'
        ? async () => {
            const recorded = await recordReversalAfterEnd(deps.db, submission);
            if (recorded)
              deps.logger.warn(
                { tenantId, loanId: submission.loanId, invoice: line.invoice },
                `a repayment reversed after its loan's workflow ended: ${recorded}`,
              );
          }
        : undefined;
    return signalLoan(deps, tenantId, submission.loanId, repaymentNotificationSignal, line, ended);
  }
  const payout = parsePayoutInvoice(line.invoice);
  if (!payout || payout.tenantId !== tenantId) return 'NO';
  const loan = await findLoan(deps.db, tenantId, payout.loanId);
  if (!loan) return 'NO';
  // A payout is only ever PAID or EXPIRED; any other status has nothing to move.
  if (line.status !== 'PAID' && line.status !== 'EXPIRED') return 'OK';
  return signalLoan(deps, tenantId, payout.loanId, payoutNotificationSignal, line);
}

/**
 * One POST of the gateway with its form fields present: `ERR=unknown merchant` (404) without a merchant
 * of the tenant, `ERR=...` for a packet that fails its checks, else one reply line per invoice.
 */
export async function receiveCollectNotification(
  deps: UseCaseDeps,
  { tenantId, ...form }: { tenantId: string; encoded: string; checksum: string; signature: string },
): Promise<{ status: 200 | 404; body: string }> {
  const merchant = await loadCollectMerchant(deps.db, deps.config, tenantId);
  if (!merchant) return { status: 404, body: 'ERR=unknown merchant\n' };
  // As ePay's own receiver: a packet that fails its checks is refused as a whole (the gateway retries).
  if (!checksumMatches(merchant.secret, form.encoded, form.checksum))
    return { status: 200, body: 'ERR=Not valid CHECKSUM\n' };
  if (!(await signatureValid(deps, form.encoded, form.signature).catch(() => false)))
    return { status: 200, body: 'ERR=Not valid SIGNATURE\n' };
  const replies: { invoice: string; reply: NotificationReply }[] = [];
  for (const line of parseNotification(form.encoded)) {
    replies.push({ invoice: line.invoice, reply: await receiveLine(deps, tenantId, line) });
  }
  return { status: 200, body: notificationReplyBody(replies) };
}
