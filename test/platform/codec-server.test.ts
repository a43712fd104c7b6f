import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The codec server (api/admin/codec.ts) as its real peers use it: the Temporal CLI with
 * `--codec-endpoint` and `--codec-auth`, and the Web UI's browser requests (CORS, a session URL instead
 * of a header). Only the operator decodes: without the ADMIN_TOKEN, payloads stay sealed.
 */

const ADMIN_TOKEN = 'admin-token-for-the-codec-server-test-0123456789';
const UI_ORIGIN = 'http://127.0.0.1:8233';
const TEXT = 'Your parcel 5731-QX is at the Larkspur depot';

let platform: TestPlatform;
let workflowId: string;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  const sent = await api('POST', '/sms', {
    body: { to: '+359888123457', from: '+359888000111', message: TEXT },
  });
  expect(sent.status).toBe(202);
  const delivered = await eventually(
    async () => {
      const { json } = await api('GET', `/sms/${sent.json.id as string}`);
      return json.status === 'delivered' ? json : undefined;
    },
    30_000,
    'the SMS to be delivered',
  );
  // The workflow the message names (its batch, decision 0074).
  workflowId = delivered.process as string;
});
afterAll(async () => {
  await platform?.stop();
});

/** `temporal workflow show` of the SMS as JSON, through the codec server when `auth` is given. */
async function cliShow(args: string[]): Promise<{ code: number | null; output: string }> {
  const cli = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
  const child = spawn(cli, [
    'workflow',
    'show',
    '--address',
    platform.config.TEMPORAL_ADDRESS,
    '--namespace',
    platform.config.TEMPORAL_NAMESPACE,
    '--workflow-id',
    workflowId,
    '--output',
    'json',
    ...args,
  ]);
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

/** The payloads' data of a `--output json` history, base64-decoded (the CLI prints them encoded). */
const payloadData = (output: string) =>
  [...output.matchAll(/"data": "([A-Za-z0-9+/=]*)"/g)]
    .map((match) => Buffer.from(match[1] ?? '', 'base64').toString('utf8'))
    .join('\n');

const codecUrl = () => `${platform.apiUrl}/codec`;

describe('the codec server', () => {
  it('decodes for the Temporal CLI with the operator token, and only with it', async () => {
    const raw = await cliShow([]);
    expect(raw.code).toBe(0);
    expect(raw.output).toContain('YmluYXJ5L2VuY3J5cHRlZA=='); // base64 of binary/encrypted
    expect(payloadData(raw.output)).not.toContain('Larkspur');

    const decoded = await cliShow(['--codec-endpoint', codecUrl(), '--codec-auth', `Bearer ${ADMIN_TOKEN}`]);
    expect(decoded.code, decoded.output.slice(0, 500)).toBe(0);
    expect(payloadData(decoded.output)).toContain('Larkspur depot');

    const refused = await cliShow(['--codec-endpoint', codecUrl(), '--codec-auth', 'Bearer not-the-token']);
    expect(payloadData(refused.output)).not.toContain('Larkspur');
  }, 60_000);

  it("serves the Web UI through a session URL, with CORS for the UI's origin only", async () => {
    const sessionUrl = await fetch(`${platform.apiUrl}/admin/codec/session-url`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(sessionUrl.status).toBe(200);
    const { endpoint } = (await sessionUrl.json()) as { endpoint: string };
    expect(endpoint).toMatch(/\/codec\/session\/[A-Za-z0-9_-]{43}$/);
    expect(endpoint).not.toContain(ADMIN_TOKEN);
    expect((await fetch(`${platform.apiUrl}/admin/codec/session-url`)).status).toBe(401);

    // The browser's preflight from the UI's origin is allowed; another origin gets no CORS grant.
    const preflight = (origin: string) =>
      fetch(`${endpoint}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(
      (await preflight('https://attacker.example')).headers.get('access-control-allow-origin'),
    ).toBeNull();

    // A round trip as the UI makes it: encode (sealed) then decode (the original).
    const plain = {
      metadata: { encoding: Buffer.from('json/plain').toString('base64') },
      data: Buffer.from(JSON.stringify({ text: TEXT })).toString('base64'),
    };
    const post = (url: string, body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: UI_ORIGIN },
        body: JSON.stringify(body),
      });
    const encoded = await post(`${endpoint}/encode`, { payloads: [plain] });
    expect(encoded.status).toBe(200);
    const sealed = (await encoded.json()) as {
      payloads: { metadata: Record<string, string>; data: string }[];
    };
    expect(Buffer.from(sealed.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(sealed.payloads[0]!.data, 'base64').toString()).not.toContain('Larkspur');
    const decoded = await post(`${endpoint}/decode`, sealed);
    expect(decoded.status).toBe(200);
    expect(await decoded.json()).toEqual({ payloads: [plain] });

    // Without the session key or the token: 401, nothing decoded; a malformed body: 400 naming the field.
    expect((await post(`${codecUrl()}/decode`, sealed)).status).toBe(401);
    const wrongKey = `${codecUrl()}/session/${'A'.repeat(43)}/decode`;
    expect((await post(wrongKey, sealed)).status).toBe(401);
    const malformed = await post(`${endpoint}/decode`, { payloads: [{ data: 'not base64!' }] });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toContain('payloads.0.data');
  });
});
