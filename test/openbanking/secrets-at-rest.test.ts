import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggablePath } from '../../api/app.ts';
import { obConsents, obEmailOutbox, obUsers } from '../../db/schema/openbanking.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { enrolUser } from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bankHash, newCustomer, startConsent } from './consent-helpers.ts';

/**
 * Secrets of the open-banking gateway at rest (issue 13, item 5): the consent `state` and the AIS-link
 * token are stored only as SHA-256 digests; the callback finds its consent by the digest of the path's
 * state, and the hook call still carries the plain state (from the workflow's input). The callback path
 * (which carries the state) is logged without it.
 */

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

let platform: TestPlatform;
let hooks: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  platform = await startTestPlatform();
  hooks = await startReceiver();
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

describe('consent state', () => {
  it('is stored as its digest; the callback finds the consent by it and the hook call carries the state', async () => {
    const customer = await newCustomer(platform);
    const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: customer.headers,
      body: { url: hooks.url, redirectUrl: 'https://agent.example.com/done' },
    });
    const consent = await startConsent(customer, {
      bankHash: bankHash('bank-a'),
      hookHash: hook.body.hookHash,
    });
    const [row] = await platform.db.select().from(obConsents).where(eq(obConsents.id, consent.consentId));
    expect(row).toBeDefined();
    // No column holds the plain state; one holds its digest.
    expect(JSON.stringify(row)).not.toContain(consent.state);
    expect(Object.values(row!)).toContain(sha256(consent.state));

    const { submitted } = await driveSca(consent.scaRedirectUrl, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
      submit: true,
    });
    expect(submitted!.status).toBe(303);
    expect(submitted!.headers.get('location')).toBe(`https://agent.example.com/done?state=${consent.state}`);
    const call = await eventually(
      async () => hooks.requests.find((request) => request.path.includes(`state=${consent.state}`)),
      20_000,
      'the hook call with the state',
    );
    expect(call).toBeDefined();
  });

  it('an unknown state (or its digest given as the state) is the 404 page', async () => {
    const customer = await newCustomer(platform);
    const consent = await startConsent(customer, { bankHash: bankHash('bank-a') });
    const digestAsState = Buffer.from(sha256(consent.state), 'hex').toString('base64url');
    const response = await fetch(`${platform.openBanking.url}/redirect/web/state/${digestAsState}`, {
      method: 'POST',
    });
    expect(response.status).toBe(404);
  });

  it('is not written to the access log: the callback path is logged without it', () => {
    const state = 'A'.repeat(43);
    expect(loggablePath(`/openbanking/redirect/web/state/${state}`)).toBe(
      '/openbanking/redirect/web/state/<redacted>',
    );
    expect(loggablePath(`/openbanking/redirect/web/state/${state}?outcome=nok`)).not.toContain(state);
  });
});

describe('AIS-link token', () => {
  it('the outbox keeps the token’s digest, not the link; the body is the e-mail as sent', async () => {
    const agent = await platform.openBanking.createAgent('AIS link agent');
    const user = await enrolUser((await newCustomer(platform)).call, agent.agentHash);
    const { call } = await newCustomer(platform);
    const sent = await call<{ messageId: string; link: string }>('POST', '/api/8/agent/ais/email', {
      headers: { 'x-user-hash': user.userHash },
    });
    expect(sent.status).toBe(202);
    const token = new URL(sent.body.link).searchParams.get('token')!;
    const [row] = await platform.db
      .select()
      .from(obEmailOutbox)
      .where(eq(obEmailOutbox.id, sent.body.messageId));
    const { body, ...stored } = row!;
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(Object.values(stored)).toContain(sha256(token));
    expect(body).toContain(sent.body.link);
  });
});

describe('identity hash of a user', () => {
  it('is stored encrypted and bound to its user; the agent reads it back as given', async () => {
    const customer = await newCustomer(platform);
    const identityHash = `person-${Date.now()}-reference`;
    const user = await enrolUser(customer.call, customer.agentHash, { identityHash });
    const [row] = await platform.db.select().from(obUsers).where(eq(obUsers.id, user.userId));
    expect(row?.identityHash).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(identityHash);

    const listed = await customer.call<{ items: { userId: string; identityHash: string | null }[] }>(
      'GET',
      '/api/8/agent/users?size=100',
      { headers: { 'x-agent-hash': customer.agentHash } },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.items.find((item) => item.userId === user.userId)?.identityHash).toBe(identityHash);
  });
});
