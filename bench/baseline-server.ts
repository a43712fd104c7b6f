import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { and, eq, isNull } from 'drizzle-orm';
import { Hono } from 'hono';
import { openbanking } from '../application/openbanking/index.ts';
import { platformWorkerTuning } from '../cmd/worker.ts';
import { openDatabase } from '../db/client.ts';
import { messagingMessages } from '../db/schema/messaging.ts';
import { obAccounts, obBalances } from '../db/schema/openbanking.ts';
import { announceReady } from './child.ts';
import { minimalActivities } from './minimal-workflow.ts';

/**
 * The baselines' server, a process of its own and no part of the product API (bench/run.ts starts it):
 * bare Hono routes on the same database (same postgres.js client and pool size) and Temporal server as
 * the stack, and a worker of the minimal one-activity workflow (same worker tuning as the platform's).
 *   POST /write/sms           (a) the database write of POST /messaging/sms: one messaging_messages row
 *   POST /start               (b) starts the minimal workflow, does not wait for it
 *   GET  /read/sms/:id        the row GET /messaging/sms/{id} reads
 *   GET  /read/ibans/:userId  the rows GET ibans reads
 *   GET  /read/balance/:id    the rows GET balance reads
 * Baseline (c), the minimal workflow end to end, is driven by bench/run.ts through its own client.
 */
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const accountId = env('BENCH_ACCOUNT_ID');
const taskQueue = env('BENCH_MINIMAL_TASK_QUEUE');
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
const database = await openDatabase({
  url: env('DATABASE_URL'),
  poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
const { db } = database;
const connection = await Connection.connect({ address: env('TEMPORAL_ADDRESS') });
const client = new Client({ connection, namespace });

const workerConnection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
const worker = await Worker.create({
  connection: workerConnection,
  namespace,
  taskQueue,
  workflowBundle: await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./minimal-workflow.ts', import.meta.url)),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  }),
  activities: minimalActivities,
  ...platformWorkerTuning,
});
const running = worker.run();

const app = new Hono();
app.post('/write/sms', async (c) => {
  const body = (await c.req.json()) as { to: string; from: string; message: string };
  const [row] = await db
    .insert(messagingMessages)
    .values({
      id: randomUUID(),
      accountId,
      channel: 'sms',
      to: body.to,
      from: body.from,
      message: body.message,
      encoding: 'GSM-7',
      parts: 1,
      dlrUrl: null,
      scheduled: null,
      status: 'accepted',
      idempotencyKey: null,
    })
    .onConflictDoNothing()
    .returning();
  return c.json({ id: row?.id, status: row?.status }, 202);
});
app.post('/start', async (c) => {
  const handle = await client.workflow.start('minimalWorkflow', { taskQueue, workflowId: randomUUID() });
  return c.json({ id: handle.workflowId }, 202);
});
app.get('/read/sms/:id', async (c) => {
  const [row] = await db
    .select()
    .from(messagingMessages)
    .where(and(eq(messagingMessages.id, c.req.param('id')), eq(messagingMessages.accountId, accountId)));
  return row ? c.json(row) : c.json({ error: 'not found' }, 404);
});
app.get('/read/ibans/:userId', async (c) =>
  c.json(await openbanking.listUserAccounts({ db }, { userId: c.req.param('userId') })),
);
app.get('/read/balance/:id', async (c) => {
  const id = c.req.param('id');
  const [account] = await db
    .select()
    .from(obAccounts)
    .where(and(eq(obAccounts.id, id), isNull(obAccounts.deletedAt)))
    .limit(1);
  if (!account) return c.json({ error: 'not found' }, 404);
  return c.json({
    account,
    balances: await db.select().from(obBalances).where(eq(obBalances.accountId, id)),
  });
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => server.once('listening', resolve));
announceReady({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, async () => {
  server.close();
  worker.shutdown();
  await running.catch(() => undefined);
  await workerConnection.close();
  await connection.close();
  await database.close();
});
