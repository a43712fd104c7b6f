import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { AesGcmPayloadCodec, type PayloadKey, payloadKeys } from '../../platform/payload-codec.ts';

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

export async function historyOf(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/**
 * True when the history shows a workflow at rest on a timer: a timer started and not yet fired or
 * cancelled, every scheduled activity finished, and no workflow task pending. Killing the worker then
 * interrupts nothing but the wait. (A history's last event is not enough: an activity started beside
 * the timer, such as a payout's ledger reservation, completes after it.)
 */
export function idleOnTimer(events: readonly HistoryEvent[]): boolean {
  const openTimers = new Set<string>();
  let activitiesOpen = 0;
  for (const event of events) {
    const timerId =
      event.timerStartedEventAttributes?.timerId ??
      event.timerFiredEventAttributes?.timerId ??
      event.timerCanceledEventAttributes?.timerId;
    if (event.timerStartedEventAttributes && timerId) openTimers.add(timerId);
    else if (timerId) openTimers.delete(timerId);
    if (event.activityTaskScheduledEventAttributes) activitiesOpen += 1;
    if (
      event.activityTaskCompletedEventAttributes ||
      event.activityTaskFailedEventAttributes ||
      event.activityTaskTimedOutEventAttributes ||
      event.activityTaskCanceledEventAttributes
    )
      activitiesOpen -= 1;
  }
  const last = events.at(-1);
  const noTaskPending = Boolean(
    last?.timerStartedEventAttributes || last?.workflowTaskCompletedEventAttributes,
  );
  return openTimers.size > 0 && activitiesOpen === 0 && noTaskPending;
}

/**
 * Every payload of a workflow's history, opened with the platform's payload codec (decision 0049) and
 * joined as text: what someone holding the codec's keys reads in the engine. A secret that must not
 * travel through the engine at all (decision 0068) is absent from it.
 */
export async function openedHistoryText(
  client: Client,
  config: { PAYLOAD_CODEC_KEYS: readonly PayloadKey[] },
  workflowId: string,
): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const payloads: Payload[] = [];
  const walk = (value: unknown) => {
    if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    const candidate = value as { metadata?: unknown; data?: unknown };
    if (candidate.data instanceof Uint8Array && candidate.metadata && typeof candidate.metadata === 'object')
      payloads.push(value as Payload);
    for (const child of Object.values(value)) walk(child);
  };
  walk(history);
  const opened = await new AesGcmPayloadCodec(payloadKeys(config)).decode(payloads);
  return opened.map((payload) => Buffer.from(payload.data ?? new Uint8Array()).toString('utf8')).join('\n');
}
