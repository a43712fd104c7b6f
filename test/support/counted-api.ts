import type { AddressInfo } from 'node:net';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { serve } from '@hono/node-server';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { createApp } from '../../api/app.ts';
import { createReadinessProbe } from '../../cmd/readiness.ts';
import { platformServices } from '../../cmd/services.ts';
import { type Database, schema } from '../../db/client.ts';
import { registerListen } from '../../db/notifications.ts';
import { createLogger } from '../../platform/logger.ts';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import type { TestPlatform } from './platform.ts';

/** The database statements and Temporal calls one request made, in order. */
export interface RoundTrips {
  /** Every SQL statement sent (a transaction's `begin` and `commit` included). */
  sql: string[];
  /** Every gRPC call to the Temporal frontend, by method (`StartWorkflowExecution`, `UpdateWorkflowExecution`, …). */
  temporal: string[];
}

/**
 * A second API process of `platform` that counts its round trips: the same app (`createApp`, every
 * service), configuration, database and Temporal namespace, but with a database pool and a Temporal
 * connection of its own, so that each SQL statement it sends (postgres.js `debug`) and each gRPC call it
 * makes is seen, and nothing of the platform's worker (its activities' writes) is. `roundTripsOf` runs
 * one request at a time and answers what it cost.
 *
 * The API's background work is not started (the messaging outbox hand-over): between requests it sends
 * nothing. It starts no workflow eagerly (no worker on its connection): a start is one call either way.
 */
export async function startCountedApi(platform: Pick<TestPlatform, 'config'>) {
  const { config } = platform;
  if (!config.DATABASE_URL) throw new Error('startCountedApi needs the PostgreSQL test database');
  let current: RoundTrips | undefined;
  const sql = postgres(config.DATABASE_URL, {
    max: 5,
    onnotice: () => {},
    debug: (_connection, query) => void current?.sql.push(query.replace(/\s+/g, ' ').trim()),
  });
  const db = drizzle(sql, { schema }) as unknown as Database;
  registerListen(db, async (channel, onPayload, onListening) => {
    await sql.listen(channel, onPayload, onListening);
  });
  const counting: Interceptor = (options, nextCall) => {
    current?.temporal.push(options.method_definition.path.replace(/^.*\//, ''));
    return new InterceptingCall(nextCall(options));
  };
  const connection = await Connection.connect({
    address: config.TEMPORAL_ADDRESS,
    interceptors: [counting, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
  });
  const client = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: platformDataConverter(config),
  });
  const logger = createLogger('silent');
  const deps = { db, temporal: client, config, logger };
  const readiness = createReadinessProbe({
    db,
    temporal: client,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  });
  const app = createApp(deps, readiness, platformServices);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    /** Runs `request` alone (the next one waits) and answers its result with the round trips it made. */
    roundTripsOf<T>(request: () => Promise<T>): Promise<{ answer: T; trips: RoundTrips }> {
      const run = queue.then(async () => {
        const trips: RoundTrips = { sql: [], temporal: [] };
        current = trips;
        try {
          return { answer: await request(), trips };
        } finally {
          current = undefined;
        }
      });
      queue = run.catch(() => {});
      return run;
    },
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      connection.close();
      await sql.end({ timeout: 5 });
    },
  };
}

export type CountedApi = Awaited<ReturnType<typeof startCountedApi>>;
