import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { parse } from 'yaml';
import { demoLending } from '../../cmd/demo-lending.ts';
import type { SandboxParties } from '../../cmd/sandbox-parties.ts';
import { PLATFORM_COMMAND_FILES, STACK_SERVICES } from '../../cmd/stack.ts';
import { openDatabase } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { systemDocumentTypes } from '../../domain/lending/loan-documents.ts';
import { expTimeIn, getText, signedPacket } from '../collect/epay-client.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/database.ts';
import { projectRoot } from '../support/import-graph.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually } from '../support/platform.ts';

/**
 * `npm run stack` (decision 0060): the scale-out topology as separate processes on this machine — the
 * real Temporal server on PostgreSQL and its Web UI (built with Go on first use: about 11 minutes for
 * the server, 1.5 for the UI, on 2 cores; cached per user), the sandbox, the migrations, the API and two
 * workers — and docker-compose.yml describing the same topology.
 */

const read = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  restart?: string;
  ports?: string[];
  environment?: Record<string, unknown>;
  depends_on?: Record<string, { condition: string }>;
}

describe('docker-compose.yml and npm run stack', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

  it('run the same services', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      STACK_SERVICES.map((service) => service.name).sort(),
    );
    expect(pkg.scripts.stack).toBe('tsx cmd/stack-main.ts');
  });

  it('run each the same program: the image command of the npm script, or the Go module of the image at its version', () => {
    for (const service of STACK_SERVICES) {
      const composed = compose.services[service.name];
      if (service.runs.kind === 'platform') {
        expect(composed?.build, service.name).toBe('.');
        expect(composed?.command, service.name).toEqual([service.runs.command]);
        expect(pkg.scripts[service.runs.command]).toBe(`tsx ${PLATFORM_COMMAND_FILES[service.runs.command]}`);
      } else if (service.runs.kind === 'go') {
        expect(composed?.image, service.name).toBe(`${service.runs.image}:${service.runs.version.slice(1)}`);
      } else {
        expect(composed?.image, service.name).toMatch(/^postgres:/);
      }
    }
  });

  it('give each process the same environment variables', () => {
    for (const service of STACK_SERVICES) {
      const names = Object.keys(compose.services[service.name]?.environment ?? {});
      for (const name of service.env) expect(names, `${service.name}: ${name}`).toContain(name);
    }
  });

  it('restart the same processes, run migrations once before api and workers, and scale the workers', () => {
    for (const service of STACK_SERVICES) {
      const composed = compose.services[service.name];
      if (service.lifetime === 'one-shot') {
        expect(composed?.restart, service.name).toBe('no');
        for (const dependent of ['api', 'worker'])
          expect(compose.services[dependent]?.depends_on?.[service.name]?.condition).toBe(
            'service_completed_successfully',
          );
      } else if (service.onExit === 'restart') {
        expect(composed?.restart, service.name).toBe('unless-stopped');
      } else {
        expect(composed?.restart, service.name).toBeUndefined();
      }
      // A scaled service publishes no port (the replicas would collide).
      if (service.replicas === 'many') expect(composed?.ports, service.name).toBeUndefined();
    }
  });
});

interface Stack {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  dataDir: string;
  apiUrl: string;
  token: string;
  parties: SandboxParties;
}

const TEMPORAL_PREFIX = `tmp_stack_${randomBytes(4).toString('hex')}`;
let database: TestDatabase;
let stack: Stack;

async function startStack(): Promise<Stack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'stack-data-'));
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    // Temporal's two databases on the same server, named for this run (dropped after it).
    TEMPORAL_POSTGRES_URL: TEST_DATABASE_URL,
    TEMPORAL_DATABASE_PREFIX: TEMPORAL_PREFIX,
    DATA_DIR: dataDir,
    // 0: the stack picks free ports, each just before the process that listens on it starts (another
    // test's server may take a port picked here a minute before the stack binds it).
    PORT: '0',
    TEMPORAL_ADDRESS: '127.0.0.1:0',
    TEMPORAL_UI_PORT: '0',
    SMPP_PORT: '0',
    SANDBOX_HTTP_PORT: '0',
    SANDBOX_BANKS_PORT: '0',
    SANDBOX_MERCHANT_PORT: '0',
    SANDBOX_ACQUIRER_PORT: '0',
    SANDBOX_BUREAU_PORT: '0',
    PLATFORM_MODE: 'sandbox',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'cmd/stack-main.ts', '--workers', '2'], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  process.once('exit', () => child.kill('SIGKILL'));
  // The first run on a machine builds the Temporal server and the Web UI with Go (minutes).
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm run stack exited (${child.exitCode}):\n${output}`);
      return output.includes('Press Ctrl-C to stop.') ? true : undefined;
    },
    1_500_000,
    `npm run stack to be ready:\n${output}`,
  );
  const parties = JSON.parse(
    readFileSync(path.join(dataDir, 'sandbox-parties.json'), 'utf8'),
  ) as SandboxParties;
  return {
    child,
    output: () => output,
    exited,
    dataDir,
    apiUrl: parties.apiUrl,
    token: readFileSync(path.join(dataDir, 'sandbox-token'), 'utf8').trim(),
    parties,
  };
}

const processPid = (name: string): number => {
  const state = JSON.parse(readFileSync(path.join(stack.dataDir, 'stack.json'), 'utf8')) as {
    processes: { name: string; pid: number }[];
  };
  const found = state.processes.find((entry) => entry.name === name);
  if (!found) throw new Error(`no ${name} in stack.json`);
  return found.pid;
};

beforeAll(async () => {
  database = await createTestDatabase();
  stack = await startStack();
}, 1_600_000);

afterAll(async () => {
  if (stack) {
    stack.child.kill('SIGINT');
    const code = await stack.exited;
    rmSync(stack.dataDir, { recursive: true, force: true });
    expect(code, stack.output()).toBe(0);
    expect(stack.output()).toContain('Stopped.');
  }
  await database?.drop();
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    for (const name of [TEMPORAL_PREFIX, `${TEMPORAL_PREFIX}_visibility`])
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}, 120_000);

describe('npm run stack', () => {
  beforeEach(() => {
    onTestFailed(() => {
      console.log(`npm run stack output:\n${stack.output()}`);
      for (const name of ['api', 'worker-1', 'worker-2', 'sandbox']) {
        try {
          console.log(
            `${name}.log (end):\n${readFileSync(path.join(stack.dataDir, 'stack-logs', `${name}.log`), 'utf8').slice(-3000)}`,
          );
        } catch {}
      }
    });
  });

  it('prints a banner with the URLs, the Web UI serves, and the API is healthy', async () => {
    const output = stack.output();
    expect(output).toMatch(/Temporal server {6}127\.0\.0\.1:\d+ {3}\(PostgreSQL: tmp_stack_/);
    expect(output).toMatch(/worker-1 +pid \d+/);
    expect(output).toMatch(/worker-2 +pid \d+/);
    const uiUrl = /Temporal Web UI {6}(http:\/\/\S+)/.exec(output)?.[1];
    expect(uiUrl, output).toBeDefined();
    expect((await fetch(`${uiUrl}/`)).status).toBe(200);
    expect(stack.parties.temporalUiUrl).toBe(uiUrl);
    expect(output).toContain(`API                  ${stack.apiUrl}`);
    expect((await fetch(`${stack.apiUrl}/health`)).status).toBe(200);
  });

  it('completes an SMS, a payout and a loan with a worker SIGKILLed mid-flow, nothing doubled', async () => {
    const { apiUrl, token, parties } = stack;
    const merchant = parties.collect;
    const handset = async (number: string) =>
      (
        (await (
          await fetch(`${parties.sandboxProvidersUrl}/handset/${number.replace('+', '')}.json`)
        ).json()) as {
          messages: { text: string }[];
        }
      ).messages;

    // A payout waiting for its recipient.
    const invoice = String(Date.now()).slice(-9);
    const ordered = await getText(
      `${apiUrl}/collect/office/send.cgi`,
      signedPacket(
        {
          MIN: merchant.min,
          INVOICE: invoice,
          AMOUNT: '150.00',
          RCPT_NAME: 'Ivan Petrov',
          RCPT_ID: '8001011234',
          EXP_TIME: expTimeIn(3 * 86_400_000),
          ENCODING: 'utf-8',
        },
        merchant.secret,
      ),
    );
    expect(ordered.status, ordered.body).toBe(200);
    const sysCode = ordered.fields.SYS_CODE ?? '';

    // The loan from application to Active, as `npm run demo` walks it; when the offer is accepted (the
    // bureau decided, the signing codes are about to be texted), an SMS is sent and worker-1 is killed.
    const victim = processPid('worker-1');
    const smsTo = `+3598881${String(Date.now()).slice(-5)}`;
    let smsId: string | undefined;
    let killed: Promise<void> | undefined;
    let loanId: string | undefined;
    const loan = demoLending({
      apiUrl,
      parties,
      say: (text) => {
        if (!text.startsWith('Accept the offer') || killed) return;
        killed = (async () => {
          const response = await fetch(`${apiUrl}/messaging/sms?at=${encodeURIComponent(token)}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ to: smsTo, from: 'DEMO', message: 'Hello from the stack test' }),
          });
          expect(response.status).toBe(202);
          smsId = ((await response.json()) as { id: string }).id;
          process.kill(victim, 'SIGKILL');
        })();
      },
      show: (label, value) => {
        if (label === 'loan') loanId = (value as { loanId: string }).loanId;
      },
      workflowLink: (workflowId) => workflowId,
      until: (what, check, timeoutMs) => eventually(check, timeoutMs ?? 120_000, what),
    });
    await eventually(async () => (killed ? true : undefined), 120_000, 'the offer to be accepted');
    await killed;
    await eventually(
      async () =>
        stack.output().includes(`worker-1 (pid ${victim}) died (signal SIGKILL)`) ? true : undefined,
      30_000,
      'the stack to report the dead worker',
    );

    // The recipient collects the payout while the killed worker's tasks move to the other one.
    const paid = await getText(`${apiUrl}/collect/office/pay_money_send.cgi`, { SYS_CODE: sysCode });
    expect(paid.status, paid.body).toBe(200);

    await loan;
    expect(loanId).toBeDefined();
    const sms = await eventually(
      async () => {
        const response = await fetch(`${apiUrl}/messaging/sms/${smsId}?at=${encodeURIComponent(token)}`);
        const message = (await response.json()) as { status: string };
        return ['delivered', 'failed', 'rejected', 'undeliverable', 'expired', 'unknown'].includes(
          message.status,
        )
          ? message
          : undefined;
      },
      150_000,
      'the SMS to be delivered',
    );
    expect(sms.status).toBe('delivered');
    const query = signedPacket({ MIN: merchant.min, INVOICE: invoice }, merchant.secret);
    const notification = await eventually(
      async () => {
        const response = await fetch(`${apiUrl}/collect/notifications?${new URLSearchParams(query)}`);
        const [found] = ((await response.json()) as { notifications: { status: string; delivery: string }[] })
          .notifications;
        return found && found.delivery !== 'pending' ? found : undefined;
      },
      150_000,
      'the PAID notification of the payout',
    );
    expect(notification).toMatchObject({ status: 'PAID', delivery: 'delivered' });
    await eventually(
      async () => (stack.output().includes('worker-1 restarted') ? true : undefined),
      30_000,
      'worker-1 to be restarted',
    );
    expect(processPid('worker-1')).not.toBe(victim);

    // Nothing doubled: one SMS at the handset, one code per loan document, one PAID line at the
    // merchant, one message row, and the collect ledger (payout and disbursement) balanced.
    expect((await handset(smsTo)).length).toBe(1);
    const codes = (await handset('+12025550143')).filter((message) =>
      message.text.includes(`loan ${loanId}`),
    );
    expect(codes.length).toBe(systemDocumentTypes.length);
    const received = (await (
      await fetch(
        `${merchant.sandboxMerchantUrl}/${merchant.min}/notifications?${new URLSearchParams({ invoice })}`,
      )
    ).json()) as { notifications: { lines: { invoice: string; status: string }[] }[] };
    const paidLines = received.notifications.flatMap((post) =>
      post.lines.filter((line) => line.invoice === invoice && line.status === 'PAID'),
    );
    expect(paidLines.length).toBe(1);
    const db = await openDatabase({ url: database.url, poolSize: 1 });
    try {
      expect(
        await db.db.select().from(messagingMessages).where(eq(messagingMessages.to, smsTo)),
      ).toHaveLength(1);
      await expectLedgerBalanced(db.db);
    } finally {
      await db.close();
    }
  }, 600_000);
});
