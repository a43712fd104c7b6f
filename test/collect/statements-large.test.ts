import { and, count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectStatementCredits } from '../../db/schema/collect-statements.ts';
import { statementImportWorkflowId } from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type CamtEntry, camt053 } from './camt-builder.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from './epay-client.ts';

/**
 * A large statement (decision 0071): 3,000 credits are read an entry at a time and stored in chunks;
 * the import settles the matched ones a batch at a time, each batch one activity with a fixed number
 * of payments in flight, and nothing that travels through Temporal grows with the statement: the
 * workflow and every activity get the statement's id and answer counts.
 */

const ADMIN_TOKEN = 'admin-token-for-large-statement-0123456789';
const CREDITS = 3000;
const MATCHED = 45;
const SETTLE_BATCH = 20;
/** Every payload of the import's history stays below this, whatever the statement's size. */
const PAYLOAD_BOUND = 1024;

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: {
      ADMIN_TOKEN,
      COLLECT_STATEMENT_MAX_BYTES: String(8 * 1024 * 1024),
      COLLECT_STATEMENT_SETTLE_BATCH: String(SETTLE_BATCH),
      COLLECT_STATEMENT_SETTLE_CONCURRENCY: '3',
    },
  });
});
afterEach(async () => {
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await platform?.stop();
});

type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<TestPlatform['client']['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

/** The sizes of every payload an event carries (inputs, results, heartbeat details, failures). */
function payloadSizes(value: unknown, sizes: number[] = []): number[] {
  if (value instanceof Uint8Array) return sizes;
  if (Array.isArray(value)) for (const item of value) payloadSizes(item, sizes);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'payloads' && Array.isArray(item)) {
        for (const payload of item as { data?: Uint8Array | null }[]) sizes.push(payload.data?.length ?? 0);
      } else payloadSizes(item, sizes);
    }
  }
  return sizes;
}

describe('a statement of 3,000 credits', () => {
  it('is stored in chunks and settled a batch at a time; no Temporal payload grows with it', async () => {
    const merchant = await platform.createSandboxMerchant();
    const slips: string[] = [];
    for (let start = 0; start < MATCHED; start += 15) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(15, MATCHED - start) }, async () => {
          const answer = await getText(
            `${platform.collectUrl}/office/reg_vnbel.cgi`,
            signedPacket(
              {
                MIN: merchant.min,
                INVOICE: newInvoice(),
                AMOUNT: '12.34',
                EXP_TIME: expTimeIn(86_400_000),
              },
              merchant.secret,
            ),
          );
          expect(answer.status, answer.body).toBe(200);
          return answer.fields.IDN ?? '';
        }),
      );
      slips.push(...batch);
    }
    // The matched credits spread over the statement; the others name no obligation (unknown_idn).
    const stamp = Date.now();
    const every = Math.floor(CREDITS / MATCHED);
    const entries: CamtEntry[] = Array.from({ length: CREDITS }, (_, i) => ({
      amount: '12.34',
      ref: `LARGE-${stamp}-${i}`,
      ustrd: [
        i % every === 0 && i / every < MATCHED
          ? `Deposit slip IDN ${slips[i / every]}`
          : `IDN 00000${String(i).padStart(5, '0')}`,
      ],
    }));
    const xml = camt053({ id: `LARGE-${stamp}`, entries });

    const response = await fetch(`${platform.apiUrl}/admin/collect/statements`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' },
      body: xml,
    });
    const answer = (await response.json()) as { statements: { statementId: string; credits: number }[] };
    expect(response.status, JSON.stringify(answer).slice(0, 300)).toBe(202);
    const [received] = answer.statements;
    expect(received?.credits).toBe(CREDITS);
    const statementId = received?.statementId ?? '';
    const [stored] = await platform.db
      .select({ n: count() })
      .from(collectStatementCredits)
      .where(eq(collectStatementCredits.statementId, statementId));
    expect(stored?.n).toBe(CREDITS);

    const statement = await eventually(
      async () => {
        const read = await fetch(`${platform.apiUrl}/admin/collect/statements/${statementId}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        const body = (await read.json()) as {
          status: string;
          credits: number;
          settled: number;
          review: number;
        };
        return body.status === 'imported' ? body : undefined;
      },
      240_000,
      `statement ${statementId} imported`,
    );
    expect(statement).toMatchObject({ credits: CREDITS, settled: MATCHED, review: CREDITS - MATCHED });
    const [unknown] = await platform.db
      .select({ n: count() })
      .from(collectStatementCredits)
      .where(
        and(
          eq(collectStatementCredits.statementId, statementId),
          eq(collectStatementCredits.reason, 'unknown_idn'),
        ),
      );
    expect(unknown?.n).toBe(CREDITS - MATCHED);

    // The import's history: one settling activity per batch of SETTLE_BATCH matched credits, each given
    // the statement's id only; every payload small, whatever the number of credits.
    const events: HistoryEvent[] =
      (await platform.client.workflow.getHandle(statementImportWorkflowId(statementId)).fetchHistory())
        .events ?? [];
    const settling = events.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'settleStatementCredits',
    );
    expect(settling).toHaveLength(Math.ceil(MATCHED / SETTLE_BATCH));
    const sizes = events.flatMap((event) => payloadSizes(event));
    expect(sizes.length).toBeGreaterThan(settling.length);
    expect(Math.max(...sizes)).toBeLessThan(PAYLOAD_BOUND);
  }, 600_000);
});
