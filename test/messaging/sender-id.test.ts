import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerJson, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';

/** The operator's side (api/admin, decision 0028). */
const adminOf =
  (platform: () => TestPlatform) =>
  async (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) => {
    const response = await fetch(`${platform().apiUrl}/admin${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as AnswerJson };
  };

const notApproved = (from: string) => {
  const message = `"${from}" is not an approved sender ID of this account; register it with POST /senderId, confirm it and wait for an operator's approval`;
  return {
    status: 422,
    json: { error: { code: 'sender_id_not_approved', message, fields: [{ field: 'from', message }] } },
  };
};

const validationError = (field: string, message: string) => ({
  error: { code: 'validation_failed', message: 'The request is not valid', fields: [{ field, message }] },
});

describe('sender IDs', () => {
  let platform: TestPlatform;
  const api = messagingClient(() => platform);
  const admin = adminOf(() => platform);

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('registers a sender ID as pending, confirms it, and lists it as confirmed', async () => {
    const before = Date.now();
    const registered = await api('POST', '/senderId', {
      body: { senderId: 'ACME', description: 'Order notifications' },
    });
    expect(registered.status).toBe(202);
    expect(registered.json).toMatchObject({
      senderId: 'ACME',
      description: 'Order notifications',
      status: 'pending',
      confirmedAt: null,
    });
    const id = registered.json.id as string;
    // SENDER_ID_CONFIRMATION_TIMEOUT defaults to 7 days.
    const expiresIn = Date.parse(registered.json.expiresAt as string) - before;
    expect(expiresIn).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThan(7 * 86_400_000 + 60_000);

    const confirmed = await api('POST', `/senderId/confirm/${id}`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.json).toMatchObject({ id, senderId: 'ACME', status: 'confirmed' });
    expect(Date.parse(confirmed.json.confirmedAt as string)).toBeGreaterThanOrEqual(before - 1000);

    const listed = await api('GET', '/senderId?status=confirmed');
    expect(listed.status).toBe(200);
    expect(listed.json.items).toEqual([
      expect.objectContaining({
        id,
        senderId: 'ACME',
        status: 'confirmed',
        confirmedAt: confirmed.json.confirmedAt,
      }),
    ]);
    expect((await api('GET', `/senderId/${id}`)).json).toMatchObject({ status: 'confirmed' });
  });

  it('lets messages come from an approved sender ID only: the account’s confirmation alone is not enough', async () => {
    const registered = await api('POST', '/senderId', { body: { senderId: 'Shop 24' } });
    const send = (from = 'Shop 24') =>
      api('POST', '/sms', { body: { to: '+359888123456', from, message: 'hello' } });
    expect(await send()).toEqual(notApproved('Shop 24'));

    const id = registered.json.id as string;
    expect((await api('POST', `/senderId/confirm/${id}`)).json).toMatchObject({ status: 'confirmed' });
    expect(await send()).toEqual(notApproved('Shop 24'));
    expect(
      (await api('POST', '/chatapp', { body: { to: '+359888123456', from: 'Shop 24', message: 'x' } })).json
        .error?.code,
    ).toBe('sender_id_not_approved');

    // The operator sees it waiting, with the account it belongs to.
    const waiting = await admin('GET', '/messaging/sender-ids');
    expect(waiting.status).toBe(200);
    expect(waiting.json.items).toContainEqual(
      expect.objectContaining({
        id,
        accountId: platform.accountId,
        senderId: 'Shop 24',
        status: 'confirmed',
      }),
    );
    const approved = await admin('POST', `/messaging/sender-ids/${id}/approve`, {
      reason: 'Trading name checked against the company register',
      note: 'ticket OPS-17',
    });
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({
      id,
      status: 'approved',
      decisionReason: 'Trading name checked against the company register',
      operatorNote: 'ticket OPS-17',
    });
    expect((await admin('GET', '/messaging/sender-ids')).json.items).not.toContainEqual(
      expect.objectContaining({ id }),
    );
    // The account sees the decision and its reason, not the operator's note.
    const own = (await api('GET', `/senderId/${id}`)).json;
    expect(own).toMatchObject({
      status: 'approved',
      decisionReason: 'Trading name checked against the company register',
    });
    expect(own).not.toHaveProperty('operatorNote');
    expect(Date.parse(own.decidedAt as string)).toBeGreaterThan(0);
    expect((await send()).status).toBe(202);
    // The workflow ended with the decision.
    const handle = platform.client.workflow.getHandle(`sender-id-${id}`);
    expect(await handle.result()).toBe('approved');
    // A number the account verified (the test account's, granted at start) is usable too.
    expect((await send('+359888000111')).status).toBe(202);
  });

  it('records a rejection with its reason; the sender ID stays unusable and may be registered again', async () => {
    const { json } = await api('POST', '/senderId', { body: { senderId: 'BigBank' } });
    await api('POST', `/senderId/confirm/${json.id}`);
    const rejected = await admin('POST', `/messaging/sender-ids/${json.id}/reject`, {
      reason: 'The name of another company',
    });
    expect(rejected).toMatchObject({
      status: 200,
      json: { status: 'rejected', decisionReason: 'The name of another company', operatorNote: null },
    });
    expect((await api('GET', `/senderId/${json.id}`)).json).toMatchObject({
      status: 'rejected',
      decisionReason: 'The name of another company',
    });
    expect(
      await api('POST', '/sms', { body: { to: '+359888123456', from: 'BigBank', message: 'x' } }),
    ).toEqual(notApproved('BigBank'));
    // Decided once: a second decision is refused.
    expect(
      await admin('POST', `/messaging/sender-ids/${json.id}/approve`, { reason: 'changed my mind' }),
    ).toEqual({
      status: 409,
      json: {
        error: {
          code: 'sender_id_not_awaiting_approval',
          message: 'The sender ID is rejected; only a confirmed registration can be approved or rejected',
        },
      },
    });
    expect((await api('POST', `/senderId/confirm/${json.id}`)).status).toBe(409);
    expect((await api('POST', '/senderId', { body: { senderId: 'BigBank' } })).status).toBe(202);
  });

  it('refuses a decision on a registration the account has not confirmed, and on an unknown one', async () => {
    const { json } = await api('POST', '/senderId', { body: { senderId: 'EARLY' } });
    expect((await admin('POST', `/messaging/sender-ids/${json.id}/approve`, { reason: 'ok' })).json).toEqual({
      error: {
        code: 'sender_id_not_awaiting_approval',
        message: 'The sender ID is pending; only a confirmed registration can be approved or rejected',
      },
    });
    expect(
      (await admin('POST', `/messaging/sender-ids/${randomUUID()}/approve`, { reason: 'ok' })).status,
    ).toBe(404);
    // A reason is required.
    expect((await admin('POST', `/messaging/sender-ids/${json.id}/reject`, { reason: ' ' })).status).toBe(
      400,
    );
    // Only operators decide.
    expect(
      (await admin('POST', `/messaging/sender-ids/${json.id}/approve`, { reason: 'x' }, null)).status,
    ).toBe(401);
    expect((await admin('GET', '/messaging/sender-ids', undefined, `${ADMIN_TOKEN}x`)).status).toBe(401);
  });

  it('does not let another account use a sender ID approved for someone else', async () => {
    const { json } = await api('POST', '/senderId', { body: { senderId: 'BRAND' } });
    await api('POST', `/senderId/confirm/${json.id}`);
    await admin('POST', `/messaging/sender-ids/${json.id}/approve`, { reason: 'owner verified' });
    const body = { to: '+359888123456', from: 'BRAND', message: 'phish' };
    expect((await api('POST', '/sms', { body })).status).toBe(202);

    const other = await platform.issueToken('Impostor');
    expect(await api('POST', '/sms', { body, token: other.token })).toEqual(notApproved('BRAND'));
    // Registering and confirming the same name does not make it theirs: an operator decides.
    const theirs = await api('POST', '/senderId', { body: { senderId: 'BRAND' }, token: other.token });
    await api('POST', `/senderId/confirm/${theirs.json.id}`, { token: other.token });
    expect(await api('POST', '/sms', { body, token: other.token })).toEqual(notApproved('BRAND'));
    expect(await api('POST', '/chatapp', { body, token: other.token })).toEqual(notApproved('BRAND'));
  });

  it('refuses a second confirmation with 409 sender_id_already_confirmed', async () => {
    const { json } = await api('POST', '/senderId', { body: { senderId: 'TWICE' } });
    expect((await api('POST', `/senderId/confirm/${json.id}`)).status).toBe(200);
    expect(await api('POST', `/senderId/confirm/${json.id}`)).toEqual({
      status: 409,
      json: { error: { code: 'sender_id_already_confirmed', message: 'The sender ID is already confirmed' } },
    });
  });

  it('confirms once when confirmations race; the others get 409', async () => {
    const { json } = await api('POST', '/senderId', { body: { senderId: 'RACE' } });
    const answers = await Promise.all([1, 2, 3].map(() => api('POST', `/senderId/confirm/${json.id}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    for (const answer of answers.filter((entry) => entry.status === 409)) {
      expect(answer.json).toEqual({
        error: { code: 'sender_id_already_confirmed', message: 'The sender ID is already confirmed' },
      });
    }
  });

  it('refuses to register a sender ID that is already pending or confirmed (409 sender_id_exists)', async () => {
    const first = await api('POST', '/senderId', { body: { senderId: 'DUPE' } });
    expect(first.status).toBe(202);
    const conflict = {
      status: 409,
      json: { error: { code: 'sender_id_exists', message: '"DUPE" is already registered for this account' } },
    };
    expect(await api('POST', '/senderId', { body: { senderId: 'DUPE' } })).toEqual(conflict);
    await api('POST', `/senderId/confirm/${first.json.id}`);
    expect(await api('POST', '/senderId', { body: { senderId: 'DUPE' } })).toEqual(conflict);

    // Another account may register the same name.
    const other = await platform.issueToken();
    expect((await api('POST', '/senderId', { body: { senderId: 'DUPE' }, token: other.token })).status).toBe(
      202,
    );
  });

  it('answers 404 for an unknown id and for a sender ID of another account', async () => {
    const notFound = { status: 404, json: { error: { code: 'not_found', message: 'Sender ID not found' } } };
    expect(await api('POST', `/senderId/confirm/${randomUUID()}`)).toEqual(notFound);

    const { json } = await api('POST', '/senderId', { body: { senderId: 'MINE' } });
    const other = await platform.issueToken();
    expect(await api('POST', `/senderId/confirm/${json.id}`, { token: other.token })).toEqual(notFound);
    expect(await api('GET', `/senderId/${json.id}`, { token: other.token })).toEqual(notFound);
    expect((await api('GET', '/senderId', { token: other.token })).json.items).toEqual([]);
    // Still pending for its owner.
    expect((await api('GET', `/senderId/${json.id}`)).json).toMatchObject({ status: 'pending' });
  });

  it('normalises a numeric sender ID to E.164', async () => {
    const { status, json } = await api('POST', '/senderId', { body: { senderId: '00359888000222' } });
    expect(status).toBe(202);
    expect(json).toMatchObject({ senderId: '+359888000222', status: 'pending' });
  });

  it.each([
    ['missing senderId', {}, 'senderId', 'Invalid input: expected string, received undefined'],
    ['empty senderId', { senderId: '' }, 'senderId', 'Too small: expected string to have >=1 characters'],
    [
      'too long',
      { senderId: 'ABCDEFGHIJKL' },
      'senderId',
      'an alphanumeric sender ID has at most 11 characters',
    ],
    [
      'characters outside the sender alphabet',
      { senderId: 'AC$ME' },
      'senderId',
      'may contain only letters, digits, spaces and . - _ & (at least one letter), or be a phone number',
    ],
    [
      'digits that are no phone number',
      { senderId: '12345' },
      'senderId',
      'a numeric sender ID must be a valid phone number in international format',
    ],
    [
      'description too long',
      { senderId: 'OK', description: 'x'.repeat(201) },
      'description',
      'Too big: expected string to have <=200 characters',
    ],
  ])('rejects %s with 400 naming the field', async (_case, body, field, message) => {
    expect(await api('POST', '/senderId', { body })).toEqual({
      status: 400,
      json: validationError(field, message),
    });
  });

  it('requires the access token', async () => {
    expect(await api('POST', '/senderId', { body: { senderId: 'ACME' }, token: null })).toEqual({
      status: 401,
      json: {
        error: { code: 'unauthorized', message: 'The access token (query parameter `at`) is missing' },
      },
    });
  });
});

describe('sender ID expiry', () => {
  let platform: TestPlatform;
  const api = messagingClient(() => platform);
  const admin = adminOf(() => platform);

  beforeAll(async () => {
    platform = await startTestPlatform({
      env: { SENDER_ID_CONFIRMATION_TIMEOUT: '1500ms', SENDER_ID_APPROVAL_TIMEOUT: '1500ms', ADMIN_TOKEN },
    });
  });

  it('expires an unconfirmed registration, then refuses to confirm it and allows registering it again', async () => {
    const { status, json } = await api('POST', '/senderId', { body: { senderId: 'LATE' } });
    expect(status).toBe(202);
    const expiresIn = Date.parse(json.expiresAt as string) - Date.parse(json.createdAt as string);
    expect(expiresIn).toBe(1500);

    await eventually(
      async () => ((await api('GET', `/senderId/${json.id}`)).json.status === 'expired' ? true : undefined),
      15_000,
      'the registration to expire',
    );
    expect(await api('POST', `/senderId/confirm/${json.id}`)).toEqual({
      status: 409,
      json: {
        error: {
          code: 'sender_id_expired',
          message: 'The sender ID registration has expired; register it again',
        },
      },
    });
    expect((await api('GET', '/senderId?status=expired')).json.items).toEqual([
      expect.objectContaining({ id: json.id, status: 'expired', confirmedAt: null }),
    ]);
    const again = await api('POST', '/senderId', { body: { senderId: 'LATE' } });
    expect(again.status).toBe(202);
    expect(again.json.id).not.toBe(json.id);
  });

  it('expires a confirmed registration that no operator decides in time', async () => {
    const { json } = await api('POST', '/senderId', { body: { senderId: 'UNDECIDED' } });
    expect((await api('POST', `/senderId/confirm/${json.id}`)).status).toBe(200);
    await eventually(
      async () => ((await api('GET', `/senderId/${json.id}`)).json.status === 'expired' ? true : undefined),
      15_000,
      'the undecided registration to expire',
    );
    expect((await admin('POST', `/messaging/sender-ids/${json.id}/approve`, { reason: 'late' })).status).toBe(
      409,
    );
  });
  afterAll(async () => {
    await platform?.stop();
  });
});
