import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { and, asc, desc, eq, gt } from 'drizzle-orm';
import { grantSenders } from '../../credentials/messaging/senders.ts';
import { messagingAccounts } from '../../db/schema/messaging.ts';
import {
  messagingInboundMessages,
  messagingInboundNumbers,
  messagingOptOuts,
} from '../../db/schema/messaging-inbound.ts';
import { INBOUND_EVENT_TYPE, type InboundSms, optOutKeywordOf } from '../../domain/messaging/inbound.ts';
import { inboundWorkflowId } from '../../domain/messaging/processes.ts';
import { normaliseNumber } from '../../domain/phone-numbers.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Inbound SMS (decision 0087), one name `inbound` in every layer: numbers the operator assigns to
 * accounts, the SMS handsets send to them (stored, then one `message.inbound` event through the
 * `inboundMessage` workflow), and the opt-outs STOP / START keep, which sends respect.
 */

export interface InboundNumberView {
  number: string;
  accountId: string;
  /** Where the number's `message.inbound` events go; null: its SMS are stored only. */
  inboundUrl: string | null;
  assignedAt: string;
}

export interface OptOutView {
  /** The account's number the STOP was sent to. */
  sender: string;
  /** The handset that sent it: sends from `sender` to it are refused. */
  recipient: string;
  createdAt: string;
}

/** What a received SMS became: its row, whose account it is (null: nobody's) and whether an event goes out. */
export interface ReceivedInboundSms {
  id: string;
  accountId: string | null;
  event: boolean;
}

type NumberRow = typeof messagingInboundNumbers.$inferSelect;

const numberView = (row: NumberRow): InboundNumberView => ({
  number: row.number,
  accountId: row.accountId,
  inboundUrl: row.inboundUrl,
  assignedAt: row.assignedAt.toISOString(),
});

/** An E.164 number, or a 400 naming `field`. */
function e164Field(field: string, value: string): string {
  const number = normaliseNumber(value);
  if (!number) throw Refusal.field(field, 'not a valid phone number in international format');
  return number.e164;
}

/**
 * The operator assigns a number to an account (admin API, `npm run admin -- messaging:number`), with the
 * URL its SMS go to. Assigning it again to the same account updates the URL (`created` false); a number
 * of another account is a 409 `number_assigned`. The account may then send from it, as from a number it
 * proved (decision 0028): the operator vouches for it.
 */
export async function assignInboundNumber(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  input: { accountId: string; number: string; inboundUrl?: string | null | undefined },
): Promise<{ number: InboundNumberView; created: boolean }> {
  const number = e164Field('number', input.number);
  assertOutboundUrlField(deps.config, 'inboundUrl', input.inboundUrl);
  const [account] = await deps.db
    .select({ id: messagingAccounts.id })
    .from(messagingAccounts)
    .where(eq(messagingAccounts.id, input.accountId));
  if (!account) throw Refusal.notFound('Messaging account');
  const [created] = await deps.db
    .insert(messagingInboundNumbers)
    .values({ number, accountId: account.id, inboundUrl: input.inboundUrl ?? null })
    .onConflictDoNothing()
    .returning();
  let row = created;
  if (!row) {
    const [updated] = await deps.db
      .update(messagingInboundNumbers)
      .set({
        accountId: account.id,
        ...(input.inboundUrl === undefined ? {} : { inboundUrl: input.inboundUrl }),
      })
      .where(
        and(eq(messagingInboundNumbers.number, number), eq(messagingInboundNumbers.accountId, account.id)),
      )
      .returning();
    if (!updated) throw Refusal.conflict('number_assigned', `${number} is assigned to another account`);
    row = updated;
  }
  await grantSenders(deps.db, account.id, { numbers: [number], reason: 'inbound number' });
  return { number: numberView(row), created: created !== undefined };
}

/** The account's assigned numbers (GET /messaging/inbound/numbers). */
export async function listInboundNumbers(
  deps: UseCaseDeps,
  { accountId }: { accountId: string },
): Promise<InboundNumberView[]> {
  const rows = await deps.db
    .select()
    .from(messagingInboundNumbers)
    .where(eq(messagingInboundNumbers.accountId, accountId))
    .orderBy(asc(messagingInboundNumbers.number));
  return rows.map(numberView);
}

/**
 * The account points its number's SMS at a URL (PUT /messaging/inbound/numbers/{number}), or at none;
 * answers the number and the URL it had (`webhooks listen` puts it back). Another account's number is a 404.
 */
export async function setInboundUrl(
  deps: UseCaseDeps,
  input: { accountId: string; number: string; inboundUrl: string | null },
): Promise<{ number: InboundNumberView; previousInboundUrl: string | null }> {
  assertOutboundUrlField(deps.config, 'inboundUrl', input.inboundUrl);
  const number = normaliseNumber(input.number)?.e164;
  const mine = number
    ? and(eq(messagingInboundNumbers.number, number), eq(messagingInboundNumbers.accountId, input.accountId))
    : undefined;
  const [before] = mine ? await deps.db.select().from(messagingInboundNumbers).where(mine) : [];
  if (!before || !mine) throw Refusal.notFound('Inbound number');
  const [after] = await deps.db
    .update(messagingInboundNumbers)
    .set({ inboundUrl: input.inboundUrl })
    .where(mine)
    .returning();
  return { number: numberView(after ?? before), previousInboundUrl: before.inboundUrl };
}

/** The handsets that opted out of the account's numbers (GET /messaging/inbound/optOuts), newest first. */
export async function listOptOuts(
  deps: UseCaseDeps,
  { accountId }: { accountId: string },
): Promise<OptOutView[]> {
  const rows = await deps.db
    .select()
    .from(messagingOptOuts)
    .where(eq(messagingOptOuts.accountId, accountId))
    .orderBy(desc(messagingOptOuts.createdAt));
  return rows.map((row) => ({
    sender: row.sender,
    recipient: row.recipient,
    createdAt: row.createdAt.toISOString(),
  }));
}

/**
 * A send from `from` to `to` (both E.164) after the handset sent STOP to `from`: 422
 * `recipient_opted_out` naming `to` (checked when a message is accepted, application/messaging/sms/send.ts).
 */
export async function assertNotOptedOut(
  deps: Pick<UseCaseDeps, 'db'>,
  from: string,
  to: string,
): Promise<void> {
  const [optOut] = await deps.db
    .select({ createdAt: messagingOptOuts.createdAt })
    .from(messagingOptOuts)
    .where(and(eq(messagingOptOuts.sender, from), eq(messagingOptOuts.recipient, to)));
  if (!optOut) return;
  const message = `${to} opted out of messages from ${from} (it sent STOP); it can opt in again by sending START`;
  throw new Refusal(422, 'recipient_opted_out', message, [{ field: 'to', message }]);
}

/** A carrier's number as E.164 (`359…` → `+359…`); kept as written when it is not a phone number. */
const carrierNumber = (value: string) =>
  normaliseNumber(/^\d+$/.test(value) ? `+${value}` : value)?.e164 ?? value;

/**
 * An SMS a handset sent (the SMSC's deliver_sm, cmd/messaging/inbound.ts): stored, with its STOP / START
 * applied, before the SMSC is answered; then, when its number is assigned and has an inbound URL, its
 * event is handed to the `inboundMessage` workflow. The SMSC sending the same SMS again (within
 * INBOUND_DUPLICATE_WINDOW) finds the stored row: one message, and the same workflow id, so one event.
 * An SMS to a number nobody was assigned is stored without an account and acknowledged, with no event.
 */
export async function receiveInboundSms(deps: UseCaseDeps, sms: InboundSms): Promise<ReceivedInboundSms> {
  const to = carrierNumber(sms.to);
  const from = carrierNumber(sms.from);
  const keyword = optOutKeywordOf(sms.text);
  const duplicateKey = createHash('sha256')
    .update([sms.carrier, from, to, sms.text].join('\u0000'))
    .digest('hex');
  const [assigned] = await deps.db
    .select()
    .from(messagingInboundNumbers)
    .where(eq(messagingInboundNumbers.number, to));
  const since = new Date(Date.now() - deps.config.INBOUND_DUPLICATE_WINDOW);

  const row = await deps.db.transaction(async (tx) => {
    const [earlier] = await tx
      .select()
      .from(messagingInboundMessages)
      .where(
        and(
          eq(messagingInboundMessages.duplicateKey, duplicateKey),
          gt(messagingInboundMessages.receivedAt, since),
        ),
      )
      .orderBy(desc(messagingInboundMessages.receivedAt))
      .limit(1);
    if (earlier) return earlier;
    const [stored] = await tx
      .insert(messagingInboundMessages)
      .values({
        id: randomUUID(),
        duplicateKey,
        accountId: assigned?.accountId ?? null,
        to,
        from,
        message: sms.text,
        keyword,
        carrier: sms.carrier,
      })
      .returning();
    if (assigned && keyword === 'stop') {
      await tx
        .insert(messagingOptOuts)
        .values({ sender: to, recipient: from, accountId: assigned.accountId, inboundMessageId: stored!.id })
        .onConflictDoNothing();
    } else if (assigned && keyword === 'start') {
      await tx
        .delete(messagingOptOuts)
        .where(and(eq(messagingOptOuts.sender, to), eq(messagingOptOuts.recipient, from)));
    }
    return stored!;
  });

  const inboundUrl = row.accountId && assigned?.accountId === row.accountId ? assigned.inboundUrl : null;
  if (!row.accountId || !inboundUrl) {
    deps.logger.info(
      { kind: 'inbound', inboundMessageId: row.id, assigned: row.accountId !== null },
      row.accountId
        ? 'inbound SMS stored; its number has no inbound URL'
        : 'inbound SMS to an unassigned number stored',
    );
    return { id: row.id, accountId: row.accountId, event: false };
  }
  await startInboundMessage(deps, {
    service: 'messaging',
    ownerId: row.accountId,
    url: inboundUrl,
    eventType: INBOUND_EVENT_TYPE,
    eventId: inboundWorkflowId(row.id),
    subjectId: row.id,
    payload: {
      id: row.id,
      from: row.from,
      to: row.to,
      text: row.message,
      keyword: row.keyword,
      receivedAt: row.receivedAt.toISOString(),
    },
  });
  return { id: row.id, accountId: row.accountId, event: true };
}

/** Starts (once per message) the workflow that delivers its event; the numbers and text ride in its sealed input. */
async function startInboundMessage(deps: UseCaseDeps, event: WebhookRequest): Promise<void> {
  try {
    await deps.temporal.workflow.start('inboundMessage', {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: inboundWorkflowId(event.subjectId!),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      args: [event],
      typedSearchAttributes: [
        { key: PlatformService, value: 'messaging' },
        { key: OwnerId, value: event.ownerId },
        { key: BusinessStatus, value: 'received' },
      ],
      staticSummary: `Inbound SMS ${event.subjectId}`,
    });
  } catch (error) {
    // Started by the first delivery of this SMS: that workflow delivers its event.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
