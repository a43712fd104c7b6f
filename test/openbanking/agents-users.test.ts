import { request } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fulfilConsentsRequests } from '../../activities/openbanking/consent.ts';
import { digestOf } from '../../credentials/openbanking/identity.ts';
import { obEmailOutbox } from '../../db/schema/openbanking.ts';
import {
  type EnrolledUser,
  type ErrorBody,
  enrolUser,
  type ObCall,
  openBankingClient,
} from '../support/openbanking-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let call: ObCall;
let agent: { agentId: string; agentHash: string; publicHash: string };
let otherAgent: { agentId: string; agentHash: string; publicHash: string };

beforeAll(async () => {
  platform = await startTestPlatform();
  call = openBankingClient(platform.openBanking.url);
  agent = await platform.openBanking.createAgent('Agent A');
  otherAgent = await platform.openBanking.createAgent('Agent B');
});
afterAll(async () => {
  await platform?.stop();
});

const asAgent = (hash = agent.agentHash) => ({ 'x-agent-hash': hash });
const fieldsOf = (body: Partial<ErrorBody>) => body.error?.fields?.map((field) => field.field) ?? [];

describe('POST signup/agent', () => {
  it('enrols an agent in the sandbox without credentials and returns its hashes once', async () => {
    const { status, body } = await call<{ agentId: string; agentHash: string; publicHash: string }>(
      'POST',
      '/api/8/signup/agent',
      { body: { name: 'Self-service partner', email: 'ops@partner.example' } },
    );
    expect(status).toBe(201);
    expect(body.agentId).toMatch(/^agt_/);
    expect(body.agentHash).toMatch(/^agent_[A-Za-z0-9_-]{43}$/);
    expect(body.publicHash).toMatch(/^public_[A-Za-z0-9_-]{43}$/);
    // The new hash works at once.
    expect((await call('GET', '/api/8/agent/users', { headers: asAgent(body.agentHash) })).status).toBe(200);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'Partner', email: 'not-an-email' }, 'email'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await call('POST', '/api/7/signup/agent', { body });
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('validation_failed');
    expect(fieldsOf(response.body)).toContain(field);
  });
});

describe('POST signup', () => {
  it('enrols a customer for the agent of x-agent-hash or of the body’s agentHash', async () => {
    const byHeader = await enrolUser(call, agent.agentHash);
    expect(byHeader.userId).toMatch(/^usr_/);
    expect(byHeader.userHash).toMatch(/^user_[A-Za-z0-9_-]{43}$/);
    expect(byHeader.agentId).toBe(agent.agentId);
    const byBody = await call('POST', '/api/6/signup', {
      body: {
        agentHash: agent.agentHash,
        name: 'Петър',
        family: 'Иванов-Дойчинов',
        email: `body.${Date.now()}@example.com`,
      },
    });
    expect(byBody.status).toBe(201);
    expect(byBody.body.agentId).toBe(agent.agentId);
    expect(byBody.body.kycStatus).toBe('NOT_STARTED');
  });

  it('refuses a body agentHash that differs from the header, and a missing or unknown agent', async () => {
    const person = { name: 'Maria', family: 'Ivanova', email: `x.${Date.now()}@example.com` };
    const mismatch = await call('POST', '/api/8/signup', {
      headers: asAgent(),
      body: { ...person, agentHash: otherAgent.agentHash },
    });
    expect(mismatch.status).toBe(400);
    expect(fieldsOf(mismatch.body)).toEqual(['agentHash']);
    const none = await call('POST', '/api/8/signup', { body: person });
    expect(none.status).toBe(401);
    expect(none.body.error?.code).toBe('unauthorized');
    const unknown = await call('POST', '/api/8/signup', { body: { ...person, agentHash: 'agent_unknown' } });
    expect(unknown.status).toBe(401);
  });

  const valid = { name: 'Maria', family: 'Ivanova' };
  it.each([
    ['bad e-mail', { ...valid, email: 'maria@' }, 'email'],
    ['missing family', { name: 'Maria', email: 'm@example.com' }, 'family'],
    ['digits in a name', { ...valid, name: 'M4ria', email: 'm@example.com' }, 'name'],
    [
      'UIC with a wrong check digit',
      { ...valid, email: 'm@example.com', companyName: 'Acme', uic: '175074753' },
      'uic',
    ],
    ['UIC of 10 digits', { ...valid, email: 'm@example.com', companyName: 'Acme', uic: '1750747520' }, 'uic'],
    ['UIC without company name', { ...valid, email: 'm@example.com', uic: '175074752' }, 'companyName'],
    [
      'webhookUrl not http(s)',
      { ...valid, email: 'm@example.com', webhookUrl: 'ftp://x.example' },
      'webhookUrl',
    ],
  ])('refuses %s with 400 naming the field and stores nothing', async (_, body, field) => {
    const before = await call<{ total: number }>('GET', '/api/8/agent/users', { headers: asAgent() });
    const response = await call('POST', '/api/8/signup', { headers: asAgent(), body });
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('validation_failed');
    expect(fieldsOf(response.body)).toContain(field);
    const after = await call<{ total: number }>('GET', '/api/8/agent/users', { headers: asAgent() });
    expect(after.body.total).toBe(before.body.total);
  });

  it('accepts 9- and 13-digit UICs with valid check digits', async () => {
    for (const uic of ['000694749', '2012345630006']) {
      const user = await enrolUser(call, agent.agentHash, { companyName: 'Acme Ltd', uic });
      expect(user.userId).toMatch(/^usr_/);
    }
  });

  it('refuses a second live user with the same e-mail (any case) with 409 user_exists', async () => {
    const email = `twice.${Date.now()}@example.com`;
    await enrolUser(call, agent.agentHash, { email });
    const again = await call('POST', '/api/8/signup', {
      headers: asAgent(),
      body: { name: 'Maria', family: 'Ivanova', email: email.toUpperCase() },
    });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('user_exists');
    // Another agent may enrol the same person.
    expect((await enrolUser(call, otherAgent.agentHash, { email })).agentId).toBe(otherAgent.agentId);
  });
});

describe('KYC', () => {
  it('starts NOT_STARTED and moves as the agent reports; refuses a move the table forbids', async () => {
    const user = await enrolUser(call, agent.agentHash);
    const status = () => call('GET', '/api/7/id/status', { headers: { 'x-user-hash': user.userHash } });
    expect((await status()).body).toMatchObject({
      userId: user.userId,
      status: 'NOT_STARTED',
      updatedAt: null,
    });

    const update = (body: Record<string, unknown>, hash = agent.agentHash) =>
      call('POST', '/api/8/kyc/update', { headers: asAgent(hash), body });
    expect((await update({ userId: user.userId, status: 'PENDING' })).status).toBe(200);
    const verified = await update({ userId: user.userId, status: 'VERIFIED' });
    expect(verified.status).toBe(200);
    expect(verified.body.status).toBe('VERIFIED');
    expect((await status()).body.status).toBe('VERIFIED');
    // The same status again is a no-op.
    expect((await update({ userId: user.userId, status: 'VERIFIED' })).status).toBe(200);

    const back = await update({ userId: user.userId, status: 'PENDING' });
    expect(back.status).toBe(409);
    expect(back.body.error?.code).toBe('kyc_transition_not_allowed');

    const rejected = await update({ userId: user.userId, status: 'REJECTED', reason: 'document forged' });
    expect(rejected.body).toMatchObject({ status: 'REJECTED', reason: 'document forged' });

    const bad = await update({ userId: user.userId, status: 'NOT_STARTED' });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(['status']);

    // Another agent's user: 404, never the status.
    const foreign = await update({ userId: user.userId, status: 'PENDING' }, otherAgent.agentHash);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.code).toBe('not_found');
    expect((await status()).body.status).toBe('REJECTED');
  });
});

describe('GET agent/users', () => {
  let mine: EnrolledUser[];
  let listing: string;
  beforeAll(async () => {
    const listAgent = await platform.openBanking.createAgent('Listing agent');
    mine = [];
    for (const name of ['Alpha', 'Bravo', 'Charlie']) {
      mine.push(
        await enrolUser(call, listAgent.agentHash, { name, email: `${name.toLowerCase()}@list.example` }),
      );
    }
    await enrolUser(call, otherAgent.agentHash, { name: 'Zulu', email: 'zulu@list.example' });
    listing = listAgent.agentHash;
  });
  const list = (query: string, hash = listing) =>
    call<
      {
        page: number;
        size: number;
        total: number;
        items: { userId: string; name: string }[];
      } & Partial<ErrorBody>
    >('GET', `/api/8/agent/users${query}`, { headers: asAgent(hash) });

  it('lists the agent’s own users, newest first, paged', async () => {
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, size: 20, total: 3 });
    expect(all.body.items.map((item) => item.name)).toEqual(['Charlie', 'Bravo', 'Alpha']);
    const second = await list('?page=2&size=2');
    expect(second.body).toMatchObject({ page: 2, size: 2, total: 3 });
    expect(second.body.items.map((item) => item.name)).toEqual(['Alpha']);
    expect((await list('?text=BRAV')).body.items.map((item) => item.name)).toEqual(['Bravo']);
    expect((await list('?text=zulu')).body.total).toBe(0); // another agent's user
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(`?dateFrom=${today}&dateTo=${today}`)).body.total).toBe(3);
    expect((await list('?dateTo=2020-01-01')).body.total).toBe(0);
    expect((await list('?size=100')).status).toBe(200);
  });

  it.each([
    ['?size=101', 'size'],
    ['?size=0', 'size'],
    ['?page=0', 'page'],
    ['?page=abc', 'page'],
    ['?dateFrom=2026-11-02&dateTo=2026-11-01', 'dateFrom'],
    ['?dateFrom=2026-13-45', 'dateFrom'],
    ['?dateFrom=2026-02-30', 'dateFrom'],
    ['?dateTo=yesterday', 'dateTo'],
    [`?text=${'x'.repeat(101)}`, 'text'],
  ])('refuses %s with 400 naming %s', async (query, field) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body.error?.code).toBe('validation_failed');
    expect(fieldsOf(response.body)).toEqual([field]);
  });

  it('without x-agent-hash: every agent’s users for an operator (x-admin-hash), else 401', async () => {
    expect((await call('GET', '/api/8/agent/users')).status).toBe(401);
    const { adminHash } = await platform.openBanking.createAdminHash();
    const all = await call<{ total: number }>('GET', '/api/8/agent/users?text=list.example', {
      headers: { 'x-admin-hash': adminHash },
    });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(4);
  });

  it('POST agent/user/check tells whether an e-mail is enrolled and whether a hash is that user’s', async () => {
    const check = (body: Record<string, unknown>, hash = listing) =>
      call('POST', '/api/8/agent/user/check', { headers: asAgent(hash), body });
    const user = mine[0]!;
    expect((await check({ email: 'ALPHA@list.example' })).body).toMatchObject({
      registered: true,
      userId: user.userId,
      kycStatus: 'NOT_STARTED',
      hashMatches: null,
    });
    expect((await check({ email: 'alpha@list.example', userHash: user.userHash })).body.hashMatches).toBe(
      true,
    );
    expect((await check({ email: 'alpha@list.example', userHash: mine[1]!.userHash })).body.hashMatches).toBe(
      false,
    );
    expect((await check({ email: 'nobody@list.example' })).body).toMatchObject({
      registered: false,
      userId: null,
    });
    // Another agent's user is not revealed.
    expect((await check({ email: 'zulu@list.example' })).body.registered).toBe(false);
    const bad = await check({ email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(['email']);
  });
});

describe('DELETE agent/user', () => {
  it('marks the user deleted; its hash and tokens stop working; another agent gets 404', async () => {
    const user = await enrolUser(call, agent.agentHash);
    const token = await call<{ token: string }>('POST', '/api/8/usertoken', {
      headers: { 'x-user-hash': user.userHash },
    });
    expect(token.status).toBe(200);

    const foreign = await call('DELETE', '/api/8/agent/user', {
      headers: { 'x-agent-hash': otherAgent.agentHash, 'x-user-hash': user.userHash },
    });
    expect(foreign.status).toBe(404);
    expect(
      (await call('GET', '/api/8/id/status', { headers: { 'x-user-hash': user.userHash } })).status,
    ).toBe(200);

    const deleted = await call('DELETE', '/api/8/agent/user', {
      headers: { 'x-agent-hash': agent.agentHash, 'x-user-hash': user.userHash },
    });
    expect(deleted.status).toBe(204);
    expect(
      (await call('GET', '/api/8/id/status', { headers: { 'x-user-hash': user.userHash } })).status,
    ).toBe(401);
    const bearer = await call('GET', '/api/8/id/status', {
      headers: { authorization: `Bearer ${token.body.token}` },
    });
    expect(bearer.status).toBe(401);
    expect(
      (await call('POST', '/api/8/usertoken', { headers: { 'x-user-hash': user.userHash } })).status,
    ).toBe(401);
    // Gone from the list; the e-mail may be enrolled again.
    const listed = await call<{ items: { userId: string }[] }>(
      'GET',
      `/api/8/agent/users?text=${user.email}`,
      {
        headers: asAgent(),
      },
    );
    expect(listed.body.items).toEqual([]);
    expect((await enrolUser(call, agent.agentHash, { email: user.email })).userId).not.toBe(user.userId);
  });
});

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
