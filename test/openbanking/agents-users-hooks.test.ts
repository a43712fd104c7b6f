import { request } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilConsentsRequests } from '../../activities/openbanking/consent.ts';
import { digestOf } from '../../credentials/openbanking/identity.ts';
import { obEmailOutbox } from '../../db/schema/openbanking.ts';
import { enrolUser, type ObCall } from '../support/openbanking-client.ts';
import type { TestPlatform } from '../support/platform.ts';
import { type Agent, fieldsOf, startAgentsPlatform } from './agents-users-support.ts';

/**
 * What agents do for their users: hooks, operations on accounts, consents requests (cgate) and links
 * handed to outside parties. Enrolment, KYC, listing and deletion: agents-users.test.ts.
 */

let platform: TestPlatform;
let call: ObCall;
let agent: Agent;
let otherAgent: Agent;

beforeAll(async () => {
  ({ platform, call, agent, otherAgent } = await startAgentsPlatform());
});
afterAll(async () => {
  await platform?.stop();
});

const asAgent = (hash = agent.agentHash) => ({ 'x-agent-hash': hash });

describe('hooks', () => {
  it('registers hooks owned by the user or the agent and returns the hook hash', async () => {
    const user = await enrolUser(call, agent.agentHash);
    const own = await call('POST', '/api/6/createhook', {
      headers: { 'x-user-hash': user.userHash },
      body: { url: 'https://agent.example.com/hook' },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({
      hookHash: expect.stringMatching(/^hook_/),
      url: 'https://agent.example.com/hook',
      redirectUrl: null,
      events: ['consent.finished', 'payment.finished'],
      bodyFormat: 'envelope',
      owner: 'user',
    });
    const agents = await call('POST', '/api/8/createhook', {
      headers: asAgent(),
      body: {
        url: 'https://agent.example.com/hook2',
        redirectUrl: 'https://agent.example.com/done',
        events: ['consent.finished'],
      },
    });
    expect(agents.status).toBe(201);
    expect(agents.body).toMatchObject({ owner: 'agent', events: ['consent.finished'] });
  });

  it.each([
    [{}, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ url: 'javascript:alert(1)' }, 'url'],
    [{ url: 'https://a.example', redirectUrl: 'ftp://b.example' }, 'redirectUrl'],
    [{ url: 'https://a.example', events: ['everything'] }, 'events.0'],
    [{ url: 'https://a.example', events: [] }, 'events'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await call('POST', '/api/8/createhook', { headers: asAgent(), body });
    expect(response.status).toBe(400);
    expect(fieldsOf(response.body)).toContain(field);
  });

  it('PUT redirect: the owner sets the redirect URL; an unknown or someone else’s hook is 404', async () => {
    const user = await enrolUser(call, agent.agentHash);
    const stranger = await enrolUser(call, agent.agentHash);
    const created = await call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: { 'x-user-hash': user.userHash },
      body: { url: 'https://agent.example.com/hook' },
    });
    const put = (
      hookhash: string,
      headers: Record<string, string>,
      redirectUrl = 'https://agent.example.com/back',
    ) =>
      call(
        'PUT',
        `/api/7/redirect?hookhash=${encodeURIComponent(hookhash)}&redirectUrl=${encodeURIComponent(redirectUrl)}`,
        {
          headers,
        },
      );
    const ok = await put(created.body.hookHash, { 'x-user-hash': user.userHash });
    expect(ok.status).toBe(200);
    expect(ok.body.redirectUrl).toBe('https://agent.example.com/back');

    expect((await put(created.body.hookHash, { 'x-user-hash': stranger.userHash })).status).toBe(404);
    expect((await put(created.body.hookHash, { 'x-agent-hash': otherAgent.agentHash })).status).toBe(404);
    const unknown = await put('hook_unknown', { 'x-user-hash': user.userHash });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('not_found');
    const badUrl = await put(created.body.hookHash, { 'x-user-hash': user.userHash }, 'nope');
    expect(badUrl.status).toBe(400);
    expect(fieldsOf(badUrl.body)).toEqual(['redirectUrl']);
    const missing = await call('PUT', '/api/8/redirect?redirectUrl=https%3A%2F%2Fa.example', {
      headers: { 'x-user-hash': user.userHash },
    });
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing.body)).toEqual(['hookhash']);
  });
});

describe('agent operations on accounts', () => {
  it('GET consent/iban/{iban}: a malformed IBAN is 400, an IBAN none of the agent’s users holds is 404', async () => {
    const get = (iban: string) =>
      call('GET', `/api/8/consent/iban/${encodeURIComponent(iban)}`, { headers: asAgent() });
    for (const bad of ['BG80BNBG96611020345679', 'XX00', '12345']) {
      const response = await get(bad);
      expect(response.status, bad).toBe(400);
      expect(fieldsOf(response.body)).toEqual(['iban']);
    }
    const unknown = await get('BG80 BNBG 9661 1020 3456 78');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('not_found');
  });

  it('POST cache/initial/{bankAccountId}: an account none of the agent’s users holds is 404', async () => {
    const response = await call('POST', '/api/8/cache/initial/acct-unknown', { headers: asAgent() });
    expect(response.status).toBe(404);
    expect(response.body.error?.code).toBe('not_found');
  });

  it('POST agent/ais/email records the e-mail with a signed AIS link in the outbox', async () => {
    const user = await enrolUser(call, agent.agentHash);
    const hook = await call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: { 'x-user-hash': user.userHash },
      body: { url: 'https://agent.example.com/hook' },
    });
    const sent = await call<{ messageId: string; recipient: string; link: string; expiresAt: string }>(
      'POST',
      '/api/8/agent/ais/email',
      {
        headers: { 'x-user-hash': user.userHash, 'x-agent-hash': agent.agentHash },
        body: { hookHash: hook.body.hookHash },
      },
    );
    expect(sent.status).toBe(202);
    expect(sent.body.recipient).toBe(user.email);
    expect(sent.body.link).toMatch(/\/openbanking\/ais\/start\?token=eyJ/);
    const [row] = await platform.db
      .select()
      .from(obEmailOutbox)
      .where(eq(obEmailOutbox.id, sent.body.messageId));
    expect(row).toMatchObject({
      userId: user.userId,
      recipient: user.email,
      // The link's token is stored as its digest only (issue 13: secrets at rest); the body is the mail as sent.
      tokenDigest: digestOf(new URL(sent.body.link).searchParams.get('token')!),
      kind: 'ais_link',
    });
    expect(row!.body).toContain(sent.body.link);

    // Without a body, with the user hash only.
    expect(
      (await call('POST', '/api/8/agent/ais/email', { headers: { 'x-user-hash': user.userHash } })).status,
    ).toBe(202);
    // Another agent, or someone else's hook: 404.
    const foreignAgent = await call('POST', '/api/8/agent/ais/email', {
      headers: { 'x-user-hash': user.userHash, 'x-agent-hash': otherAgent.agentHash },
    });
    expect(foreignAgent.status).toBe(404);
    const stranger = await enrolUser(call, agent.agentHash);
    const foreignHook = await call('POST', '/api/8/agent/ais/email', {
      headers: { 'x-user-hash': stranger.userHash },
      body: { hookHash: hook.body.hookHash },
    });
    expect(foreignHook.status).toBe(404);
    expect(fieldsOf(foreignHook.body)).toEqual(['hookHash']);
    // A user whose KYC was rejected has no active rights.
    await call('POST', '/api/8/kyc/update', {
      headers: asAgent(),
      body: { userId: stranger.userId, status: 'REJECTED' },
    });
    const rejected = await call('POST', '/api/8/agent/ais/email', {
      headers: { 'x-user-hash': stranger.userHash },
    });
    expect(rejected.status).toBe(409);
    expect(rejected.body.error?.code).toBe('kyc_rejected');
  });
});

describe('consents requests (cgate)', () => {
  it('an operator asks an agent’s user for a consent; the user sees it; a completed consent fulfils it', async () => {
    const { adminHash } = await platform.openBanking.createAdminHash();
    const user = await enrolUser(call, agent.agentHash);
    const create = (body: Record<string, unknown>, headers: Record<string, string>) =>
      call('POST', '/api/cgate/consents-request', { headers, body });
    const both = { 'x-admin-hash': adminHash, 'x-agent-hash': agent.agentHash };

    const created = await create(
      { userHash: user.userHash, banks: ['bank-a'], message: 'Please connect' },
      both,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userId: user.userId,
      banks: ['bank-a'],
      scopes: ['accounts', 'balances', 'transactions'],
      fulfilled: false,
    });
    expect((await create({ userHash: user.userHash }, { 'x-agent-hash': agent.agentHash })).status).toBe(401);
    expect((await create({ userHash: user.userHash }, { 'x-admin-hash': adminHash })).status).toBe(401);
    // The user of another agent: 404.
    const foreign = await create(
      { userHash: user.userHash },
      { ...both, 'x-agent-hash': otherAgent.agentHash },
    );
    expect(foreign.status).toBe(404);
    const badScope = await create({ userHash: user.userHash, scopes: ['payments'] }, both);
    expect(badScope.status).toBe(400);
    expect(fieldsOf(badScope.body)).toEqual(['scopes.0']);

    type List = { items: { id: string; fulfilled: boolean; consentId: string | null }[] };
    const ofUser = (query = '') =>
      call<List>('GET', `/api/cgate/consents-request/${encodeURIComponent(user.userHash)}${query}`, {
        headers: { 'x-admin-hash': adminHash },
      });
    expect((await ofUser()).body.items).toHaveLength(1);
    expect((await ofUser('?fulfilled=true')).body.items).toHaveLength(0);
    const ui = await call<List>('GET', '/api/cgate/ui/consents-request?fulfilled=false', {
      headers: { 'x-user-hash': user.userHash },
    });
    expect(ui.body.items.map((item) => item.id)).toEqual([created.body.id]);
    expect(
      (
        await call('GET', '/api/cgate/consents-request/user_unknown', {
          headers: { 'x-admin-hash': adminHash },
        })
      ).status,
    ).toBe(404);

    // A consent at another bank does not fulfil it; one at the requested bank covering the scopes does.
    const scopes = ['accounts', 'balances', 'transactions'];
    expect(
      await fulfilConsentsRequests(platform.db, {
        userId: user.userId,
        bankHash: 'bank-b',
        consentId: 'c1',
        scopes,
      }),
    ).toEqual([]);
    expect(
      await fulfilConsentsRequests(platform.db, {
        userId: user.userId,
        bankHash: 'bank-a',
        consentId: 'c2',
        scopes: ['accounts'],
      }),
    ).toEqual([]);
    expect(
      await fulfilConsentsRequests(platform.db, {
        userId: user.userId,
        bankHash: 'bank-a',
        consentId: 'c3',
        scopes,
      }),
    ).toEqual([created.body.id]);
    const fulfilled = await ofUser('?fulfilled=true');
    expect(fulfilled.body.items).toMatchObject([{ id: created.body.id, fulfilled: true, consentId: 'c3' }]);
  });
});

describe('links handed to outside parties', () => {
  /** A JSON POST whose Host header the caller chose (fetch always sends the URL's host). */
  const postWithHost = (path: string, host: string, headers: Record<string, string>, body: unknown) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const url = new URL(`${platform.openBanking.url}${path}`);
      const text = JSON.stringify(body);
      const sent = request(
        url,
        { method: 'POST', headers: { ...headers, host, 'content-type': 'application/json' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
            }),
          );
        },
      );
      sent.on('error', reject);
      sent.end(text);
    });

  it('never follow the request’s Host header (PUBLIC_BASE_URL unset: the API’s own address)', async () => {
    const user = await enrolUser(call, agent.agentHash);
    const email = await postWithHost(
      '/api/8/agent/ais/email',
      'attacker.example',
      { 'x-user-hash': user.userHash },
      {},
    );
    expect(email.status).toBe(202);
    expect(String(email.body.link)).toMatch(new RegExp(`^${platform.apiUrl}/openbanking/ais/start\\?token=`));

    const consent = await postWithHost(
      '/api/8/consent',
      'attacker.example:3000',
      { 'x-user-hash': user.userHash },
      { bankHash: '678a05c81f110e2bbecc1abf' },
    );
    expect(consent.status).toBe(201);
    expect(String(consent.body.callbackUrl)).toMatch(
      new RegExp(`^${platform.apiUrl}/openbanking/redirect/web/state/`),
    );
  });
});
