import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseError, DatabaseQueryError, withoutQueryValues } from '../../db/query-errors.ts';
import { AesGcmPayloadCodec, payloadKeys } from '../../platform/payload-codec.ts';
import { handedOverMessage, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * No SQL parameter value in any log line, nor in an activity's failure that Temporal keeps (issue 20):
 * a database refusal of a known value is provoked through the API and through an activity, and the
 * whole log of the run, the API's answer and the activity's last failure are searched for the value.
 * The refusals are check constraints this test adds to its own database.
 */

const lines: string[] = [];
let platform: TestPlatform;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { LOG_LEVEL: 'info' },
    logDestination: { write: (line) => lines.push(line) },
  });
  await platform.db.execute(
    sql.raw(
      `alter table messaging_messages add constraint logs_test_message check (message not like '%apivalue-%')`,
    ),
  );
  await platform.db.execute(
    sql.raw(
      `alter table webhook_endpoints add constraint logs_test_url check (url not like '%activityvalue-%')`,
    ),
  );
});
afterAll(async () => {
  await platform?.stop();
});

const known = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;

describe('a database refusal of a known value', () => {
  it('through the API: the answer and the log name the SQLSTATE, never the value', async () => {
    const value = known('apivalue');
    const answer = await api('POST', '/sms', {
      body: { to: '+359888123490', from: '+359888000111', message: `code ${value}` },
    });
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.json)).not.toContain(value);

    const logged = await eventually(
      async () => lines.find((line) => line.includes('unhandled error')),
      5_000,
      'the error log line',
    );
    expect(lines.join('\n')).not.toContain(value);
    expect(logged).toContain('SQLSTATE 23514 check_violation');
    expect(logged).toContain('logs_test_message');
  });

  it('through an activity: its retried failure, in the log and in Temporal, names the SQLSTATE, never the value', async () => {
    const value = known('activityvalue');
    const sent = await api('POST', '/sms', {
      body: {
        to: '+359888123491',
        from: '+359888000111',
        message: 'hello',
        dlrUrl: `http://127.0.0.1:9/dlr?ref=${value}`,
      },
    });
    expect(sent.status).toBe(202);
    const workflow = await handedOverMessage(platform, sent.json.id as string);
    // The delivery receipt's webhook: registering its endpoint (the URL, a parameter) is refused. Its
    // failure, retried (the pending activity's last failure) or final (the history's), is searched.
    const failure = await eventually(
      async (): Promise<temporal.api.failure.v1.IFailure | undefined> => {
        const { raw } = await workflow.describe();
        const pending = raw.pendingActivities?.find(
          // A batch's reports are registered by deliverWebhooks (decision 0074), a message of its own's by registerWebhookDelivery.
          (activity) =>
            ['registerWebhookDelivery', 'deliverWebhooks'].includes(activity.activityType?.name ?? '') &&
            activity.lastFailure,
        );
        if (pending?.lastFailure) return pending.lastFailure;
        const { events } = await workflow.fetchHistory();
        return (
          events?.find((event) => event.activityTaskFailedEventAttributes?.failure)
            ?.activityTaskFailedEventAttributes?.failure ?? undefined
        );
      },
      20_000,
      'the webhook registration to fail',
    );
    // The engine keeps the failure's message sealed (decision 0049); opened with the platform's keys,
    // it names the SQLSTATE and the constraint, not the value.
    expect(failure.message).toBe('Encoded failure');
    const [opened] = await new AesGcmPayloadCodec(payloadKeys(platform.config)).decode([
      failure.encodedAttributes as Payload,
    ]);
    const { message } = defaultPayloadConverter.fromPayload(opened!) as { message: string };
    expect(`${message} ${JSON.stringify(failure.cause ?? null)}`).not.toContain(value);
    expect(message).toContain('SQLSTATE 23514 check_violation');
    expect(message).toContain('logs_test_url');
    await workflow.terminate('test done').catch(() => undefined);

    const activityLines = lines.filter(
      (line) => line.includes('registerWebhookDelivery') || line.includes('Activity failed'),
    );
    expect(activityLines.some((line) => line.includes('23514'))).toBe(true);
    expect(lines.join('\n')).not.toContain(value);
  });
});

describe('withoutQueryValues', () => {
  it('maps a PGlite server error to its names only, and leaves other errors as they are', () => {
    const secret = known('pglite');
    // pg-protocol's DatabaseError, as PGlite throws it.
    const pglite = Object.assign(new Error(`invalid input syntax for type uuid: "${secret}"`), {
      severity: 'ERROR',
      code: '22P02',
      detail: secret,
      table: 't',
      column: 'id',
      dataType: 'uuid',
    });
    const mapped = withoutQueryValues(pglite) as DatabaseError;
    expect(mapped).toBeInstanceOf(DatabaseError);
    expect(mapped).toMatchObject({
      code: '22P02',
      table_name: 't',
      column_name: 'id',
      data_type_name: 'uuid',
    });
    expect(mapped.message).toBe(
      'SQLSTATE 22P02 invalid_text_representation (table "t", column "id", type "uuid")',
    );
    expect(JSON.stringify({ ...mapped, stack: mapped.stack })).not.toContain(secret);
    const own = new Error('the application’s own');
    expect(withoutQueryValues(own)).toBe(own);
    expect(new DatabaseQueryError('select 1', own).message).toBe('Failed query: select 1');
  });
});
