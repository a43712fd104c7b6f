import { randomBytes } from 'node:crypto';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../api/app.ts';
import { createEmbeddedLogger, createLogger } from '../../platform/logger.ts';

describe('request log', () => {
  it('never records an identity hash that an interface puts in a path', () => {
    const userHash = `user_${randomBytes(32).toString('base64url')}`;
    const logged = loggablePath(`/openbanking/api/cgate/consents-request/${userHash}`);
    expect(logged).toBe('/openbanking/api/cgate/consents-request/user_<redacted>');
    expect(logged).not.toContain(userHash.slice(5));
  });

  it('keeps ordinary paths as they are', () => {
    expect(loggablePath('/openbanking/api/8/balance/iba_0123456789abcdef01234567')).toBe(
      '/openbanking/api/8/balance/iba_0123456789abcdef01234567',
    );
    expect(loggablePath('/collect/office/reg_bill.cgi')).toBe('/collect/office/reg_bill.cgi');
  });
});

describe('error log', () => {
  it('never records the parameter values of a failed SQL query, only the query and the cause', () => {
    const lines: string[] = [];
    const logger = createLogger('info', {}, { write: (line: string) => lines.push(line) });
    const secret = `secret-${randomBytes(8).toString('hex')}`;
    // What postgres.js throws (its `parameters`; `detail` quotes a key's value) wrapped as Drizzle does.
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "t_email"'), {
      name: 'PostgresError',
      code: '23505',
      detail: `Key (email)=(${secret}) already exists.`,
      parameters: [secret, '42'],
      args: [secret],
    });
    const failed = new DrizzleQueryError(
      'insert into "t" ("email", "n") values ($1, $2)',
      [secret, 42],
      cause,
    );
    logger.error({ err: failed }, 'unhandled error');
    logger.warn({ error: failed }, 'Activity failed'); // the Temporal SDK's key
    logger.error({ err: new Error('activity failed', { cause: failed }) }, 'wrapped');
    logger.error({ err: cause }, 'postgres.js error');
    logger.error({ err: new Error(`Failed query: select 1\nparams: ${secret},x`) }, 'a copied message');
    logger.warn({ error: `Failed query: select 1\nparams: ${secret},x` }, 'a message logged as text');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line).not.toContain(secret);
    const first = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    expect(first.err.message).toContain('Failed query: insert into "t" ("email", "n") values ($1, $2)');
    expect(first.err.message).toContain('params: <2 redacted>');
    expect(first.err.message).toContain('duplicate key value violates unique constraint "t_email"');
    expect(first.err.params).toBe('<redacted>');
  });
});

describe('the embedded console (npm start)', () => {
  it('writes the full JSON log to the file and only warnings and errors, readable, to the terminal', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'log-')), 'platform.log');
    const terminal: string[] = [];
    const logger = createEmbeddedLogger(
      'info',
      { process: 'embedded' },
      {
        file,
        verbose: false,
        terminal: { write: (text: string) => terminal.push(text) },
      },
    );
    logger.info({ workflowId: 'sms-1' }, 'activity');
    logger.warn({ workflowId: 'sms-2', error: 'carrier unreachable' }, 'activity');
    logger.error({ err: new Error('boom') }, 'unhandled error');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });
    expect(logged.map((entry) => entry.msg)).toEqual(['activity', 'activity', 'unhandled error']);
    expect(terminal).toHaveLength(2);
    expect(terminal[0]).toMatch(/ WARN activity: carrier unreachable \(workflowId=sms-2\)\n$/);
    expect(terminal[1]).toMatch(/ ERROR unhandled error: boom\n$/);
  });

  it('puts the full JSON log on the terminal too when verbose', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'log-')), 'platform.log');
    const terminal: string[] = [];
    const logger = createEmbeddedLogger(
      'info',
      {},
      {
        file,
        verbose: true,
        terminal: { write: (text: string) => terminal.push(text) },
      },
    );
    logger.info('started');
    expect(JSON.parse(terminal[0]!)).toMatchObject({ level: 30, msg: 'started' });
  });
});
