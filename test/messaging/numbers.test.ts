import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/** `from` numbers proven by a code sent to them by SMS (decision 0028; beyond the spec). */
describe('from numbers', () => {
  let platform: TestPlatform;
  const api = messagingClient(() => platform);

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { NUMBER_VERIFICATION_TIMEOUT: '8s' } });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  /** The codes the platform's carrier submitted to the number, read at the sandbox SMSC (newest last). */
  const codesSentTo = (e164: string) =>
    platform.sandbox.smpp.submitted
      .filter((sms) => sms.destination === e164.slice(1))
      .map((sms) => /\b(\d{6})\b/.exec(sms.text)?.[1] ?? '');
  const nextCode = (e164: string, already = 0) =>
    eventually(async () => codesSentTo(e164)[already], 15_000, `the code SMS to ${e164}`);
  const notVerified = (number: string) => {
    const message = `${number} is not a verified number of this account; prove it with POST /numbers and POST /numbers/{id}/verify`;
    return {
      status: 422,
      json: { error: { code: 'number_not_verified', message, fields: [{ field: 'from', message }] } },
    };
  };
  const refused = (code: string, message: string) => ({
    status: 422,
    json: { error: { code, message, fields: [{ field: 'code', message }] } },
  });

  it('refuses to send from a number the account has not verified, then proves it with the code sent to it', async () => {
    const number = '+359888555001';
    const sms = { to: '+359888123456', from: number, message: 'hello' };
    expect(await api('POST', '/sms', { body: sms })).toEqual(notVerified(number));
    // National or 00 forms of the same number are the same sender.
    expect(await api('POST', '/chatapp', { body: { ...sms, from: '00359888555001' } })).toEqual(
      notVerified(number),
    );

    const requested = await api('POST', '/numbers', { body: { number: '00359 888 555 001' } });
    expect(requested.status).toBe(202);
    expect(requested.json).toMatchObject({ number, status: 'pending', attemptsLeft: 5, verifiedAt: null });
    const id = requested.json.id as string;
    const code = await nextCode(number);
    const sent = platform.sandbox.smpp.submitted.find((entry) => entry.destination === '359888555001');
    expect(sent?.source).toBe('Verify');
    // Only a digest of the code is stored; the answer does not carry it.
    const [row] = await platform.db
      .select()
      .from(messagingSenderNumbers)
      .where(eq(messagingSenderNumbers.id, id));
    expect(row?.codeDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
    expect(JSON.stringify(requested.json)).not.toContain(code);
    // Nor is it in the workflow's history (inputs and results).
    const history = await platform.client.workflow.getHandle(`numbers-${row?.challengeId}`).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(code);

    // Another account can neither see nor verify it.
    const other = await platform.issueToken('Other account');
    expect((await api('POST', `/numbers/${id}/verify`, { body: { code }, token: other.token })).status).toBe(
      404,
    );
    expect((await api('GET', '/numbers', { token: other.token })).json.items).toEqual([]);

    const verified = await api('POST', `/numbers/${id}/verify`, { body: { code } });
    expect(verified).toMatchObject({
      status: 200,
      json: { id, number, status: 'verified', codeExpiresAt: null },
    });
    expect((await api('POST', '/sms', { body: sms })).status).toBe(202);
    expect((await api('GET', '/numbers?status=verified')).json.items).toContainEqual(
      expect.objectContaining({ id, number, status: 'verified' }),
    );
    const conflict = {
      status: 409,
      json: {
        error: { code: 'number_already_verified', message: `${number} is already verified for this account` },
      },
    };
    expect(await api('POST', '/numbers', { body: { number } })).toEqual(conflict);
    expect(await api('POST', `/numbers/${id}/verify`, { body: { code } })).toEqual(conflict);
    // Still not the other account's number.
    expect(await api('POST', '/sms', { body: sms, token: other.token })).toEqual(notVerified(number));
  });

  it('counts wrong codes, ends the code after too many, and sends a new one only then', async () => {
    const number = '+359888555002';
    const { json } = await api('POST', '/numbers', { body: { number } });
    const code = await nextCode(number);
    const wrong = code === '000000' ? '111111' : '000000';
    // A live code is not replaced (so guessing stays bounded by the attempts of one code).
    expect((await api('POST', '/numbers', { body: { number } })).json.error?.code).toBe(
      'verification_code_pending',
    );
    for (const left of [4, 3, 2, 1]) {
      expect(await api('POST', `/numbers/${json.id}/verify`, { body: { code: wrong } })).toEqual(
        refused('verification_code_wrong', `Wrong code; ${left} attempt${left === 1 ? '' : 's'} left`),
      );
    }
    expect(await api('POST', `/numbers/${json.id}/verify`, { body: { code: wrong } })).toEqual(
      refused(
        'verification_code_wrong',
        'Wrong code; no attempts left: ask for a new one with POST /numbers once this one expires',
      ),
    );
    // Even the right code is refused now.
    expect(await api('POST', `/numbers/${json.id}/verify`, { body: { code } })).toEqual(
      refused(
        'verification_attempts_exceeded',
        'Too many wrong codes; ask for a new one with POST /numbers once this one expires',
      ),
    );
    expect((await api('GET', '/numbers?status=pending')).json.items).toContainEqual(
      expect.objectContaining({ id: json.id, attemptsLeft: 0 }),
    );
    expect(
      (await api('POST', '/sms', { body: { to: '+359888123456', from: number, message: 'x' } })).status,
    ).toBe(422);

    // A used-up code may be replaced at once: a new code, a new count.
    const again = await api('POST', '/numbers', { body: { number } });
    expect(again).toMatchObject({ status: 202, json: { id: json.id, attemptsLeft: 5 } });
    const second = await nextCode(number, 1);
    if (second !== code) {
      expect((await api('POST', `/numbers/${json.id}/verify`, { body: { code } })).json.error?.code).toBe(
        'verification_code_wrong',
      );
    }
    expect((await api('POST', `/numbers/${json.id}/verify`, { body: { code: second } })).status).toBe(200);
  });

  it('refuses an expired code', async () => {
    const number = '+359888555003';
    const { json } = await api('POST', '/numbers', { body: { number } });
    const code = await nextCode(number);
    const wait = Date.parse(json.codeExpiresAt as string) - Date.now() + 100;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    expect(await api('POST', `/numbers/${json.id}/verify`, { body: { code } })).toEqual(
      refused('verification_code_expired', 'The code has expired; ask for a new one with POST /numbers'),
    );
    expect(
      (await api('POST', '/sms', { body: { to: '+359888123456', from: number, message: 'x' } })).status,
    ).toBe(422);
  }, 30_000);

  it('rejects a malformed number or code with 400', async () => {
    expect((await api('POST', '/numbers', { body: { number: '12' } })).json.error?.fields).toEqual([
      { field: 'number', message: 'not a valid phone number in international format' },
    ]);
    const { json } = await api('POST', '/numbers', { body: { number: '+359888555004' } });
    expect((await api('POST', `/numbers/${json.id}/verify`, { body: { code: '12ab' } })).status).toBe(400);
  });
});
