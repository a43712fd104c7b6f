import { request } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reserveWebUiCodec } from '../../cmd/web-ui-codec.ts';
import { type DevServer, startDevServer } from '../../platform/dev-server.ts';
import { createLogger } from '../../platform/logger.ts';
import { freePort } from '../../platform/net.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { createCreditProduct } from '../lending/products-support.ts';
import { completeDetails, createLendingTenant, lendingCall, registerCustomer } from '../lending/support.ts';
import { launchChromium } from '../support/browser.ts';
import { startIsolatedPlatform } from '../support/isolated-platform.ts';
import type { TestPlatform } from '../support/platform.ts';

/**
 * Issue 37 item 3, decision 0081: the Web UI of `npm start` decodes on the first click. The dev
 * topology as cmd/start.ts wires it in sandbox mode — a Temporal dev server with its Web UI, given
 * the loopback codec endpoint (`--ui-codec-endpoint`, cmd/web-ui-codec.ts) that serves once the
 * platform runs — and a loan applied for over the lending API; a real Chromium opens the loan's
 * workflow page, as the demo's link does, and finds its input in clear (the credit product's name).
 * Without the codec endpoint the same page shows it sealed. The endpoint answers only the UI's origin
 * on its loopback address.
 */

const PRODUCT = 'Larkspur Personal 12';

let devServer: DevServer;
let platform: TestPlatform;
let browser: Browser;
let codecUrl: string;
let stopCodec: () => Promise<void>;
let workflowPage: string;

beforeAll(async () => {
  const cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
  const uiPort = await freePort();
  const codec = await reserveWebUiCodec({ uiPort });
  codecUrl = codec.url;
  devServer = await startDevServer({ cliPath, uiPort, uiCodecEndpoint: codec.url });
  platform = await startIsolatedPlatform({
    temporalAddress: devServer.address,
    workflowBundlePath: inject('workflowBundlePath'),
  });
  ({ stop: stopCodec } = await codec.serve({
    db: platform.db,
    temporal: platform.client,
    config: platform.config,
    logger: createLogger('silent', { test: true }),
  }));
  browser = await launchChromium();

  // A customer applies for a loan, as `npm run demo` does: the loan's workflow carries its terms.
  const tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId, { name: PRODUCT });
  const customer = await registerCustomer(platform, tenant, completeDetails());
  const created = await lendingCall<{ loanId: string }>(platform, 'POST', '/Customer/Loans/Create', {
    key: tenant.keys.frontOffice,
    token: customer.token,
    body: { productName: PRODUCT, amount: '5000', term: 12 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const workflowId = `lending-loan-${tenant.tenantId}-${created.body.loanId}`;
  await platform.client.workflow.getHandle(workflowId).describe();
  workflowPage = `${devServer.uiUrl}/namespaces/${platform.config.TEMPORAL_NAMESPACE}/workflows/${workflowId}`;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stopCodec?.();
  await platform?.stop();
  await devServer?.stop();
});

/**
 * The text of the workflow page's input card (from its title to the result's), once it matches `until`
 * or after `timeoutMs`; what the page showed then.
 */
async function inputShown(until: RegExp, options: { withoutCodec?: boolean } = {}): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // "Without the codec": the UI's requests to the endpoint fail, as with no endpoint configured.
    if (options.withoutCodec) await page.route(`${codecUrl}/**`, (route) => route.abort());
    await page.goto(workflowPage);
    const deadline = Date.now() + 30_000;
    let card = '';
    for (;;) {
      const text = (await page.locator('body').textContent()) ?? '';
      card = /Input\s+›[\s\S]*?Result\s+›/.exec(text)?.[0] ?? '';
      if (until.test(card) || Date.now() > deadline) return card;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await context.close();
  }
}

const post = (path: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const body = JSON.stringify({ payloads: [] });
    const sent = request(
      `${codecUrl}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });

describe("the Web UI of `npm start`'s dev topology", () => {
  it("shows a loan's input decoded on the first click", async () => {
    const text = await inputShown(/productName/);
    expect(text).toContain(`"productName": "${PRODUCT}"`);
    expect(text).not.toContain('YmluYXJ5L2VuY3J5cHRlZA');
  }, 120_000);

  it('shows it sealed without the codec endpoint: no clear text', async () => {
    const text = await inputShown(/YmluYXJ5L2VuY3J5cHRlZA/, { withoutCodec: true });
    expect(text).not.toContain(PRODUCT);
    expect(text).toContain('YmluYXJ5L2VuY3J5cHRlZA'); // binary/encrypted, base64
  }, 120_000);

  it("answers the UI's origin on its loopback address only", async () => {
    const uiOrigin = new URL(devServer.uiUrl!).origin;
    expect(codecUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await post('/decode', { origin: uiOrigin })).toBe(200);
    expect(await post('/decode', { origin: 'https://attacker.example' })).toBe(403);
    expect(await post('/decode', {})).toBe(403);
    // A page that rebinds its own name to 127.0.0.1 names itself as the Host.
    expect(
      await post('/decode', { origin: uiOrigin, host: `attacker.example:${new URL(codecUrl).port}` }),
    ).toBe(403);
  });
});
