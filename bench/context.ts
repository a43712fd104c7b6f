import type { Client } from '@temporalio/client';
import type { Database } from '../db/client.ts';
import type { Measured } from './load.ts';
import type { SmppBaselineResult } from './smpp-client.ts';

/** What bench/stack.ts announces: the measured stack (API + worker in one process). */
export interface StackInfo {
  pid: number;
  controlUrl: string;
  apiUrl: string;
  messagingUrl: string;
  collectUrl: string;
  openBankingUrl: string;
  token: string;
  /** ADMIN_TOKEN of the stack (the operator's API). */
  adminToken: string;
  accountId: string;
  databaseUrl: string;
  taskQueue: string;
  namespace: string;
  /** The stack's sandbox SMSC and the platform's account on it (baseline (d) binds there too). */
  smpp: { url: string; systemId: string; password: string };
}

/** The baselines of the run, measured once at its start on the same servers. */
export interface Baselines {
  /** (a) a bare Hono route doing one insert (the row of POST /messaging/sms). */
  write: Measured;
  /** (b) a bare Hono route that only starts the minimal workflow. */
  start: Measured;
  /** (c) the minimal one-activity workflow started and awaited end to end, CONNECTIONS at a time. */
  endToEnd: Measured;
  /** (d) a bare SMPP client on the stack's sandbox SMSC: messages submitted and receipted per second. */
  smpp: Measured & { result: SmppBaselineResult };
}

/** What every benchmark section gets. */
export interface BenchContext {
  stack: StackInfo;
  /** bench/baseline-server.ts. */
  baselineUrl: string;
  baselines: Baselines;
  /** The orchestrator's own client and database connection (set-up, drains, checks; not the load). */
  client: Client;
  db: Database;
  /** The Temporal server process (its memory is reported). */
  temporalPid: number | undefined;
  /** The PostgreSQL databases of the stack (and of the Temporal server on PostgreSQL): their backends' CPU is reported. */
  postgresDatabases: string[];
  seconds: number;
  /** Calls the stack's control server. */
  control<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
  /** Waits until the stack's task queues have no backlog (the work of the last measurement is done). */
  drain(label: string): Promise<void>;
}
