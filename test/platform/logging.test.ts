import { randomBytes } from 'node:crypto';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../api/app.ts';
import { createLogger } from '../../platform/logger.ts';

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
