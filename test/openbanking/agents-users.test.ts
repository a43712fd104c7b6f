import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EnrolledUser, type ErrorBody, enrolUser, type ObCall } from '../support/openbanking-client.ts';
import type { TestPlatform } from '../support/platform.ts';
import { type Agent, fieldsOf, startAgentsPlatform } from './agents-users-support.ts';

/**
 * Agents and their users: enrolling agents and users, KYC, listing and deleting users. Hooks, accounts,
 * consents requests and links: agents-users-hooks.test.ts.
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
