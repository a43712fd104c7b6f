import { createHash } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lending } from '../../application/lending/index.ts';
import {
  lendingEmailOutbox,
  lendingLoginThrottles,
  lendingUsers,
  lendingUserTokens,
} from '../../db/schema/lending.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  completeDetails,
  createLendingTenant,
  type LendingTestTenant,
  lastEmailTo,
  lendingCall,
  registerCustomer,
} from './support.ts';

let platform: TestPlatform;
const ADMIN_TOKEN = 'admin-token-for-lending-users-0123456789';
let tenant: LendingTestTenant;
let otherTenant: LendingTestTenant;

/**
 * A minimal SMTP server (RFC 5321 without extensions) that keeps what it is sent, so the real nodemailer
 * transport behind LENDING_SMTP_URL is exercised, not a mock of it.
 */
const smtpMessages: { from: string; to: string[]; data: string }[] = [];
const smtp = createServer((socket) => {
  let mail = { from: '', to: [] as string[], data: '' };
  let inData = false;
  let buffer = '';
  socket.write('220 test.smtp ESMTP\r\n');
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    for (;;) {
      if (inData) {
        const end = buffer.indexOf('\r\n.\r\n');
        if (end < 0) return;
        mail.data = buffer.slice(0, end);
        buffer = buffer.slice(end + 5);
        inData = false;
        smtpMessages.push(mail);
        mail = { from: '', to: [], data: '' };
        socket.write('250 queued\r\n');
        continue;
      }
      const lineEnd = buffer.indexOf('\r\n');
      if (lineEnd < 0) return;
      const line = buffer.slice(0, lineEnd);
      buffer = buffer.slice(lineEnd + 2);
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test.smtp\r\n');
      else if (verb === 'MAIL') {
        mail.from = line;
        socket.write('250 ok\r\n');
      } else if (verb === 'RCPT') {
        mail.to.push(/<([^>]*)>/.exec(line)?.[1] ?? line);
        socket.write('250 ok\r\n');
      } else if (verb === 'DATA') {
        inData = true;
        socket.write('354 go ahead\r\n');
      } else if (verb === 'QUIT') {
        socket.end('221 bye\r\n');
        return;
      } else socket.write('250 ok\r\n');
    }
  });
});

/** The text of the newest mail the SMTP server received for `recipient` (quoted-printable decoded). */
const mailedText = (recipient: string) =>
  eventually(async () => {
    const sent = smtpMessages.findLast((message) => message.to.includes(recipient));
    if (!sent) return undefined;
    const body = sent.data.slice(sent.data.indexOf('\r\n\r\n') + 4);
    return body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      .replace(/\r\n/g, '\n');
  });

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.address() as AddressInfo;
  platform = await startTestPlatform({ env: { LENDING_SMTP_URL: `smtp://127.0.0.1:${port}`, ADMIN_TOKEN } });
  tenant = await createLendingTenant(platform);
  otherTenant = await createLendingTenant(platform);
});
afterAll(async () => {
  await platform?.stop();
  await new Promise((resolve) => smtp.close(resolve));
});

const login = (credentials: { login: string; password: string }, key = tenant.keys.frontOffice) =>
  lendingCall<{ userAuthToken: string; customerId: string }>(platform, 'POST', '/User/Login', {
    key,
    query: { login: credentials.login, password: credentials.password },
  });
const details = (token: string) =>
  lendingCall(platform, 'GET', '/Customer/Details', { key: tenant.keys.frontOffice, token });

describe('Customer/Register', () => {
  it('creates the account and answers a user token that acts for the customer', async () => {
    const answer = await lendingCall<{
      userAuthToken: string;
      customerId: string;
      expiresAt: string;
      role: string;
    }>(platform, 'POST', '/Customer/Register', {
      key: tenant.keys.frontOffice,
      query: { login: 'Jane.Register@Example.com', password: 'a long enough password' },
      body: { firstName: 'Jane', lastName: 'Register' },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ role: 'customer', customerId: expect.stringMatching(/^cus_/) });
    expect(answer.body.userAuthToken).toMatch(/^lut_[A-Za-z0-9_-]{43}$/);
    const hours = (Date.parse(answer.body.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const own = await details(answer.body.userAuthToken);
    expect(own.body).toMatchObject({
      customerId: answer.body.customerId,
      login: 'jane.register@example.com',
      origin: 'registration',
      details: { firstName: 'Jane', lastName: 'Register' },
      detailsComplete: false,
    });
    // Tokens and passwords are stored only as digests / scrypt hashes.
    const stored = JSON.stringify(await platform.db.select().from(lendingUserTokens));
    expect(stored).not.toContain(answer.body.userAuthToken);
    expect(stored).toContain(createHash('sha256').update(answer.body.userAuthToken).digest('hex'));
    const [user] = await platform.db
      .select()
      .from(lendingUsers)
      .where(eq(lendingUsers.customerId, answer.body.customerId));
    expect(user?.passwordHash).toMatch(/^scrypt\$/);
    expect(user?.passwordHash).not.toContain('a long enough password');
  });

  it('a login is unique per tenant, case-insensitively; another tenant may use it', async () => {
    const query = { login: 'same.login@example.com', password: 'a long enough password' };
    const first = await lendingCall(platform, 'POST', '/Customer/Register', {
      key: tenant.keys.frontOffice,
      query,
    });
    expect(first.status).toBe(201);
    const again = await lendingCall(platform, 'POST', '/Customer/Register', {
      key: tenant.keys.frontOffice,
      query: { ...query, login: 'SAME.login@example.com' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('login_taken');
    const elsewhere = await lendingCall(platform, 'POST', '/Customer/Register', {
      key: otherTenant.keys.frontOffice,
      query,
    });
    expect(elsewhere.status).toBe(201);
  });

  it('refuses short passwords, the login as password and bad details, naming the field and never the password', async () => {
    const register = (query: Record<string, string>, body?: unknown) =>
      lendingCall(platform, 'POST', '/Customer/Register', {
        key: tenant.keys.frontOffice,
        query,
        ...(body ? { body } : {}),
      });
    const short = await register({ login: 'short.pw@example.com', password: 'secret123' });
    expect(short.status).toBe(400);
    expect(short.body.error?.fields?.[0]?.field).toBe('password');
    expect(JSON.stringify(short.body)).not.toContain('secret123');
    const same = await register({ login: 'samesame.pw', password: 'SAMESAME.PW' });
    expect(same.status).toBe(400);
    expect(same.body.error?.fields?.[0]?.field).toBe('password');
    const missing = await register({ login: 'nopw@example.com' });
    expect(missing.status).toBe(400);
    const badDetails = await register(
      { login: 'bad.details@example.com', password: 'a long enough password' },
      { birthDate: '1990-02-30', unknownField: 1 },
    );
    expect(badDetails.status).toBe(400);
    expect(badDetails.body.error?.fields?.map((field) => field.field).sort()).toEqual([
      '(body)',
      'birthDate',
    ]);
  });
});

describe('User/Login', () => {
  it('answers a new token for the right password, and the same 401 for a wrong one or an unknown login', async () => {
    const customer = await registerCustomer(platform, tenant);
    const ok = await login({ login: customer.login.toUpperCase(), password: customer.password });
    expect(ok.status).toBe(200);
    expect(ok.body.customerId).toBe(customer.customerId);
    expect((await details(ok.body.userAuthToken)).status).toBe(200);

    const wrong = await login({ login: customer.login, password: 'not the password at all' });
    const unknown = await login({ login: 'nobody@example.com', password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error?.code).toBe('invalid_credentials');
    // The same login in another tenant is another account.
    expect(
      (await login({ login: customer.login, password: customer.password }, otherTenant.keys.frontOffice))
        .status,
    ).toBe(401);
  });

  it('an expired token is 401', async () => {
    const customer = await registerCustomer(platform, tenant);
    expect((await details(customer.token)).status).toBe(200);
    await platform.db
      .update(lendingUserTokens)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(lendingUserTokens.digest, createHash('sha256').update(customer.token).digest('hex')));
    // A change made in the database reaches the API's credential cache by notification (decision 0065).
    await eventually(async () => ((await details(customer.token)).status === 401 ? true : undefined), 2_000);
  });
});

describe('User/Login guessing limits', () => {
  /** Runs `check` with User/Login's limits set to `limits` (the API reads them when called). */
  async function withLimits(limits: Partial<TestPlatform['config']>, check: () => Promise<void>) {
    const saved = { ...platform.config };
    Object.assign(platform.config, limits);
    try {
      await check();
    } finally {
      Object.assign(platform.config, saved);
    }
  }
  const hour = 3_600_000;

  it('backs off exponentially after the free failures, 429 with Retry-After, alike for an unknown login', async () => {
    await withLimits(
      {
        LENDING_LOGIN_FREE_FAILURES: 2,
        LENDING_LOGIN_BACKOFF: hour,
        LENDING_LOGIN_BACKOFF_MAX: 4 * hour,
        LENDING_LOGIN_LOCK_AFTER: 10,
      },
      async () => {
        const customer = await registerCustomer(platform, tenant);
        // A success forgets the failures before it.
        const wrongly = (who: string) => login({ login: who, password: 'not the password at all' });
        expect((await wrongly(customer.login)).status).toBe(401);
        expect((await wrongly(customer.login)).status).toBe(401);
        expect((await login(customer)).status).toBe(200);

        const unknown = `nobody-${Date.now()}@example.com`;
        for (const who of [customer.login, unknown]) {
          const answers = [await wrongly(who), await wrongly(who), await wrongly(who)];
          expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
          // Blocked now, even for the right password: not checked, not counted.
          const blocked = await login({ login: who, password: customer.password });
          expect(blocked.status).toBe(429);
          expect(blocked.body.error?.code).toBe('login_throttled');
          const retryAfter = Number(blocked.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThan(3500);
          expect(retryAfter).toBeLessThanOrEqual(3600);
        }
        // The operator lifts the block; the right password works again.
        const unlocked = await fetch(
          `${platform.apiUrl}/admin/lending/tenants/${tenant.tenantId}/login-unlocks`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ login: customer.login.toUpperCase() }),
          },
        );
        expect(await unlocked.json()).toEqual({ unlocked: true });
        expect((await login(customer)).status).toBe(200);
        // The table names no login: rows are keyed digests.
        const rows = await platform.db.select().from(lendingLoginThrottles);
        expect(JSON.stringify(rows)).not.toContain(unknown);
      },
    );
  });

  it('locks after N failures until the password is reset', async () => {
    await withLimits({ LENDING_LOGIN_FREE_FAILURES: 100, LENDING_LOGIN_LOCK_AFTER: 3 }, async () => {
      const email = `locked-${Date.now()}@example.com`;
      const customer = await registerCustomer(platform, tenant, completeDetails({ email }));
      for (let failure = 0; failure < 3; failure++) {
        expect((await login({ login: customer.login, password: 'not the password at all' })).status).toBe(
          401,
        );
      }
      const locked = await login(customer);
      expect(locked.status).toBe(423);
      expect(locked.body.error?.code).toBe('login_locked');

      await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
        key: tenant.keys.frontOffice,
        query: { login: customer.login },
      });
      const code = /\n([A-Za-z0-9_-]{43})\n/.exec(await mailedText(email))?.[1];
      const reset = await lendingCall(platform, 'POST', '/User/ResetPassword', {
        key: tenant.keys.frontOffice,
        query: { newPassword: 'unlocked by a reset', code: code! },
      });
      expect(reset.status).toBe(200);
      expect((await login({ login: customer.login, password: 'unlocked by a reset' })).status).toBe(200);
    });
  });
});

describe('User/ChangePassword', () => {
  it('needs the current password, keeps the asking token and signs the user out elsewhere', async () => {
    const customer = await registerCustomer(platform, tenant);
    const elsewhere = await login(customer);
    const change = (query: Record<string, string>) =>
      lendingCall(platform, 'POST', '/User/ChangePassword', {
        key: tenant.keys.frontOffice,
        token: customer.token,
        query,
      });
    const wrong = await change({
      currentPassword: 'wrong password here',
      newPassword: 'a brand new password',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({
      code: 'wrong_password',
      fields: [{ field: 'currentPassword' }],
    });
    expect((await change({ currentPassword: customer.password, newPassword: 'short' })).status).toBe(400);

    const ok = await change({ currentPassword: customer.password, newPassword: 'a brand new password' });
    expect(ok.status).toBe(200);
    expect((await details(customer.token)).status).toBe(200);
    expect((await details(elsewhere.body.userAuthToken)).status).toBe(401);
    expect((await login(customer)).status).toBe(401);
    expect((await login({ login: customer.login, password: 'a brand new password' })).status).toBe(200);
  });
});

describe('password reset', () => {
  it('e-mails a one-time link built on confirmationUrl; the code sets the password once', async () => {
    const email = `reset-${Date.now()}@example.com`;
    const customer = await registerCustomer(platform, tenant, completeDetails({ email }));
    const requested = await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
      key: tenant.keys.frontOffice,
      query: { login: customer.login, confirmationUrl: `https://${tenant.domain}/reset?lang=en` },
    });
    expect(requested.status).toBe(202);
    const mail = await lastEmailTo(platform, tenant.tenantId, email);
    expect(mail?.kind).toBe('password_reset');
    // Also handed to the SMTP server (LENDING_SMTP_URL), with the outcome written back.
    const sent = await eventually(async () => smtpMessages.find((message) => message.to.includes(email)));
    expect(sent.data).toContain('reset your password');
    await eventually(async () => {
      const [row] = await platform.db
        .select()
        .from(lendingEmailOutbox)
        .where(eq(lendingEmailOutbox.id, mail!.id));
      return row?.sentAt ?? undefined;
    });
    // Sent: the outbox forgot the sealed body; the code is in the mail only.
    expect((await lastEmailTo(platform, tenant.tenantId, email))?.body).toBeNull();
    const link = /https:\/\/\S+/.exec(await mailedText(email))?.[0];
    const url = new URL(link!);
    expect(url.host).toBe(tenant.domain);
    expect(url.searchParams.get('lang')).toBe('en');
    const code = url.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const reset = (newPassword: string) =>
      lendingCall(platform, 'POST', '/User/ResetPassword', {
        key: tenant.keys.frontOffice,
        query: { newPassword, code },
      });
    expect((await reset('my reset password 1')).status).toBe(200);
    // Signed out everywhere; the old password is gone, the new one works.
    expect((await details(customer.token)).status).toBe(401);
    expect((await login(customer)).status).toBe(401);
    expect((await login({ login: customer.login, password: 'my reset password 1' })).status).toBe(200);
    const again = await reset('my reset password 2');
    expect(again.status).toBe(400);
    expect(again.body.error?.code).toBe('invalid_reset_code');
  });

  it('answers an unknown login exactly as a known one, and sends nothing', async () => {
    const known = await registerCustomer(platform, tenant);
    const ask = (login: string) =>
      lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
        key: tenant.keys.frontOffice,
        query: { login, confirmationUrl: `https://${tenant.domain}/reset` },
      });
    const forKnown = await ask(known.login);
    const forUnknown = await ask('nobody-at-all@example.com');
    expect(forUnknown.status).toBe(forKnown.status);
    expect(forUnknown.body).toEqual(forKnown.body);
    expect(await lastEmailTo(platform, tenant.tenantId, 'nobody-at-all@example.com')).toBeUndefined();
    expect(await lastEmailTo(platform, tenant.tenantId, known.login)).toBeDefined();
  });

  it('a link must point at the tenant’s site; a code of another tenant does not work', async () => {
    const customer = await registerCustomer(platform, tenant);
    const foreign = await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
      key: tenant.keys.frontOffice,
      query: { login: customer.login, confirmationUrl: 'https://evil.example/steal' },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error?.fields?.[0]?.field).toBe('confirmationUrl');

    await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
      key: tenant.keys.frontOffice,
      query: { login: customer.login },
    });
    const code = /\n([A-Za-z0-9_-]{43})\n/.exec(await mailedText(customer.login))?.[1];
    expect(code).toBeDefined();
    const elsewhere = await lendingCall(platform, 'POST', '/User/ResetPassword', {
      key: otherTenant.keys.frontOffice,
      query: { newPassword: 'a password elsewhere', code: code! },
    });
    expect(elsewhere.status).toBe(400);
  });

  it('a tenant without a site domain cannot name a link; internal addresses are refused (decision 0027)', async () => {
    const bare = await createLendingTenant(platform, { siteDomains: [] });
    const customer = await registerCustomer(platform, bare);
    const ask = (key: string, confirmationUrl: string) =>
      lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
        key,
        query: { login: customer.login, confirmationUrl },
      });
    for (const url of [
      'https://attacker.example/steal',
      'http://127.0.0.1:8080/reset',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const refused = await ask(bare.keys.frontOffice, url);
      expect(refused.status, url).toBe(400);
      expect(refused.body.error?.fields?.[0]?.field).toBe('confirmationUrl');
    }
    expect(await lastEmailTo(platform, bare.tenantId, customer.login)).toBeUndefined();
    // Without a URL the e-mail carries the code alone.
    expect(
      (
        await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
          key: bare.keys.frontOffice,
          query: { login: customer.login },
        })
      ).status,
    ).toBe(202);
    expect(await lastEmailTo(platform, bare.tenantId, customer.login)).toBeDefined();
  });

  it('in production a link must be https, also on the tenant’s site domain', async () => {
    const production = { PLATFORM_MODE: 'production' as const, OUTBOUND_URL_ALLOWLIST: [] };
    const check = (url: string) =>
      lending.checkTenantSiteUrl(
        { db: platform.db, config: production },
        { tenantId: tenant.tenantId, field: 'confirmationUrl', url },
      );
    await expect(check(`http://${tenant.domain}/reset`)).rejects.toMatchObject({
      status: 400,
      fields: [{ field: 'confirmationUrl', message: 'must be an https URL' }],
    });
    await expect(check(`https://${tenant.domain}/reset`)).resolves.toBeUndefined();
    await expect(check('https://127.0.0.1/reset')).rejects.toMatchObject({ status: 400 });
  });

  it('lets a customer created by management set a first password', async () => {
    const created = await lendingCall<{ customerId: string }>(
      platform,
      'POST',
      '/Management/Customers/Create',
      {
        key: tenant.keys.management,
        body: { login: 'made.by.management@example.com', details: { firstName: 'Made' } },
      },
    );
    expect(created.status).toBe(201);
    // No password yet: nothing logs in.
    expect(
      (await login({ login: 'made.by.management@example.com', password: 'anything at all' })).status,
    ).toBe(401);
    await lendingCall(platform, 'POST', '/User/RequestPasswordReset', {
      key: tenant.keys.frontOffice,
      query: { login: 'made.by.management@example.com' },
    });
    const code = /\n([A-Za-z0-9_-]{43})\n/.exec(await mailedText('made.by.management@example.com'))?.[1];
    const reset = await lendingCall(platform, 'POST', '/User/ResetPassword', {
      key: tenant.keys.frontOffice,
      query: { newPassword: 'my first password', code: code! },
    });
    expect(reset.status).toBe(200);
    const loggedIn = await login({ login: 'made.by.management@example.com', password: 'my first password' });
    expect(loggedIn.body.customerId).toBe(created.body.customerId);
  });
});
