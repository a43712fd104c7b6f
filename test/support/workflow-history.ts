import type { Client, WorkflowHandle } from '@temporalio/client';

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
