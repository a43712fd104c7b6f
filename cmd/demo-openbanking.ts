import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactVerify, createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { createOpenBankingClient, type OpenBankingCredential } from '../clients/src/openbanking.ts';
import { hookCallJws } from '../domain/openbanking/hook-events.ts';
import { driveSca } from '../sandbox/openbanking/sca-driver.ts';
import { bodyOf, printCalls } from './demo-client.ts';

/**
 * The open-banking part of `npm run demo`: what an integrator (an "agent") does over the public API of
 * the running platform, with the typed client (clients/src/openbanking.ts, API version 8). Enrol as an agent, sign up a customer, get a user token, register a hook and
 * its redirect URL on a small receiver in this process (which verifies every hook call's JWS with the
 * published JWKS), start a consent, have the customer authenticate at the bank's SCA page, then read
 * the customer's accounts, balances and transactions.
 *
 * The SCA page is driven over HTTP as the sandbox user alice. DEMO_SCA=browser waits instead for a
 * person to open the printed URL in a browser and log in there.
 */

export interface OpenBankingDemoContext {
  apiUrl: string;
  uiUrl: string;
  namespace: string;
  say: (text: string) => void;
  show: (label: string, value: unknown) => void;
  until: <T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number) => Promise<T>;
}

const SANDBOX_PSU = { psuId: 'alice', password: 'sandbox-alice' };
const TOKEN_ISSUER = 'integration-platform/openbanking';

interface HookCall {
  state: string;
  deliveryId: string;
  event: Record<string, unknown>;
}

/**
 * The integrator's side: a hook endpoint that accepts a call only when the JWS it carries (the JSON
 * envelope's `data.jws`, decision 0064, or a bare JWS body) verifies
 * with the gateway's published keys and names the `state` of the URL; and the page the customer's
 * browser is sent to at the end.
 */
async function startIntegratorServer(jwksUrl: URL) {
  const jwks = createRemoteJWKSet(jwksUrl);
  const hookCalls: HookCall[] = [];
  const landings: string[] = [];
  const rejected: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://integrator');
      const state = url.searchParams.get('state') ?? '';
      if (req.method === 'POST' && url.pathname === '/hook') {
        try {
          const jws = hookCallJws(Buffer.concat(chunks).toString('utf8'));
          const { payload } = await compactVerify(jws, jwks);
          const event = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
          if (event.state !== state || event.iss !== TOKEN_ISSUER)
            throw new Error('state or issuer mismatch');
          hookCalls.push({ state, deliveryId: String(req.headers['webhook-id'] ?? ''), event });
          res.writeHead(204).end();
        } catch (error) {
          rejected.push((error as Error).message);
          res.writeHead(400, { 'content-type': 'text/plain' }).end('signature not valid');
        }
        return;
      }
      if (req.method === 'GET' && url.pathname === '/done') {
        landings.push(state);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>Accounts added</title><p>Your bank accounts are connected.</p>');
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hookUrl: `${base}/hook`,
    redirectUrl: `${base}/done`,
    hookCalls,
    landings,
    rejected,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function demoOpenBanking({
  apiUrl,
  uiUrl,
  namespace,
  say,
  show,
  until,
}: OpenBankingDemoContext) {
  const base = `${apiUrl}/openbanking`;
  const workflowLink = (workflowId: string) =>
    `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}`;
  /** A typed client acting as `credential` (none, the agent, or the customer's user token). */
  const clientAs = (credential: OpenBankingCredential) => {
    const client = createOpenBankingClient(apiUrl, credential);
    client.use(printCalls());
    return client;
  };
  const userAgent = 'integration-platform-demo';

  say('Open banking: enrol as an agent (POST /api/8/signup/agent, open to anyone in sandbox mode)');
  const enrolment = await clientAs({}).POST('/api/8/signup/agent', {
    body: { name: 'Demo fintech', email: 'dev@demo-fintech.example' },
  });
  if (enrolment.response.status === 401) {
    console.log(
      '   Skipped: in production mode an operator enrols agents (x-admin-hash); see docs/openbanking.md.',
    );
    return;
  }
  const agent = bodyOf(enrolment, 201, 'agent enrolment');
  show('agent', { agentId: agent.agentId, agentHash: '(shown once; kept by the demo)' });
  const asAgent = clientAs({ agentHash: agent.agentHash });

  say('Sign up a customer (POST /api/8/signup with x-agent-hash)');
  const customer = bodyOf(
    await asAgent.POST('/api/8/signup', {
      body: { name: 'Alice', family: 'Ivanova', email: `alice.${Date.now()}@demo-fintech.example` },
    }),
    201,
    'signup',
  );
  show('customer', {
    userId: customer.userId,
    kycStatus: customer.kycStatus,
    userHash: '(kept by the agent)',
  });

  const integrator = await startIntegratorServer(new URL(`${base}/api/6/.well-known/jwks.json`));
  try {
    say('Get a time-limited user token for the customer (POST /api/8/usertoken) and verify it with the JWKS');
    const issued = bodyOf(
      await clientAs({ userHash: customer.userHash }).POST('/api/8/usertoken'),
      200,
      'usertoken',
    );
    const jwks = createRemoteJWKSet(new URL(`${base}/api/6/.well-known/jwks.json`));
    const verified = await jwtVerify(issued.token, jwks, {
      issuer: TOKEN_ISSUER,
      audience: 'openbanking:user',
    });
    show('token claims', { ...decodeJwt(issued.token), kid: verified.protectedHeader.kid });
    console.log(`   verified with ${base}/api/6/.well-known/jwks.json; used below as Authorization: Bearer`);
    const asUser = clientAs({ userToken: issued.token });

    say('Register a hook and the redirect URL (POST /api/8/createhook, PUT /api/8/redirect)');
    const hook = bodyOf(
      await asUser.POST('/api/8/createhook', {
        body: { url: integrator.hookUrl, events: ['consent.finished'] },
      }),
      201,
      'createhook',
    );
    const redirect = { hookhash: hook.hookHash, redirectUrl: integrator.redirectUrl };
    show(
      'hook',
      bodyOf(await asUser.PUT('/api/8/redirect', { params: { query: redirect } }), 200, 'PUT redirect'),
    );
    console.log(`   the hook URL is a receiver in this process that verifies each call's JWS with the JWKS`);

    say('Pick the bank (GET /api/8/banks?country=BG)');
    const { banks } = bodyOf(
      await asUser.GET('/api/8/banks', { params: { query: { country: 'BG' } } }),
      200,
      'banks',
    );
    const bank = banks.find((candidate) => candidate.name === 'Sandbox Bank A') ?? banks[0];
    if (!bank) throw new Error('no bank listed; is the bank directory reachable?');
    show('bank', bank);

    say('Start a consent (POST /api/8/consent): the gateway creates it at the bank');
    const consent = bodyOf(
      await asUser.POST('/api/8/consent', {
        params: { header: { 'user-agent': userAgent } },
        body: { bankHash: bank.bankHash, hookHash: hook.hookHash },
      }),
      201,
      'consent',
    );
    show('consent', {
      consentId: consent.consentId,
      status: 'AWAITING_SCA',
      scaDeadline: consent.scaDeadline,
    });
    console.log(`   SCA page: ${consent.scaRedirectUrl}`);
    console.log(`   workflow: ${workflowLink(`ob-consent-${consent.consentId}`)}`);

    if (process.env.DEMO_SCA === 'browser') {
      say('Open the SCA page above in a browser, log in as alice / sandbox-alice and approve (waiting)');
    } else {
      say(
        'The customer authenticates at the bank: the demo drives the SCA page over HTTP as sandbox user alice',
      );
      console.log(
        '   (a person can open the SCA page URL above in a browser instead: run with DEMO_SCA=browser)',
      );
      // Null when the bank asks the user in its app (decoupled); Sandbox Bank A redirects.
      if (!consent.scaRedirectUrl) throw new Error(`${bank.name} gave no SCA page to drive`);
      const { returnForm, submitted } = await driveSca(consent.scaRedirectUrl, {
        ...SANDBOX_PSU,
        decision: 'approve',
        submit: true,
      });
      console.log('   GET the SCA page, POST login (alice / sandbox-alice), POST decision=approve → 200');
      console.log(`   the bank's auto-submitted form: POST ${returnForm.action} → ${submitted?.status}`);
      const location = submitted?.headers.get('location');
      if (location) {
        const landing = await fetch(location);
        await landing.arrayBuffer();
        console.log(`   303 to the hook's redirectUrl: GET ${location} → ${landing.status}`);
        show("the integrator's page received the state", integrator.landings.includes(consent.state));
      }
    }

    say('The gateway reads the accounts; the hook is called with a signed JWS (verified with the JWKS)');
    const hookCall = await waitFor(
      'the hook call',
      () => integrator.hookCalls.find((received) => received.state === consent.state),
      process.env.DEMO_SCA === 'browser' ? Date.parse(consent.scaDeadline) - Date.now() + 60_000 : 60_000,
    );
    show('consent.finished', hookCall.event);
    console.log(`   webhook delivery: ${workflowLink(`webhook-${hookCall.deliveryId}`)}`);
    if (hookCall.event.status !== 'ACTIVE') {
      console.log(`   the consent ended ${String(hookCall.event.status)}: nothing to read`);
      return;
    }

    say('Read the accounts from the gateway (GET ibans, balance, transactions)');
    const { ibans } = bodyOf(
      await asUser.GET('/api/8/ibans', { params: { header: { 'consent-details': 'true' } } }),
      200,
      'ibans',
    );
    show(
      'ibans',
      ibans.map(({ ibanId, iban, currency, name }) => ({ ibanId, iban, currency, name })),
    );
    const account = ibans[0];
    if (!account) throw new Error('the consent added no account');
    const balance = bodyOf(
      await asUser.GET('/api/8/balance/{ibanId}', { params: { path: { ibanId: account.ibanId } } }),
      200,
      'balance',
    );
    show(
      `balances of ${account.iban}`,
      balance.balances.map(({ balanceType, amount, currency }) => `${balanceType} ${amount} ${currency}`),
    );
    const dateFrom = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const transactions = bodyOf(
      await asUser.GET('/api/8/transactions/{ibanId}', {
        params: { path: { ibanId: account.ibanId }, query: { dateFrom } },
      }),
      200,
      'transactions',
    );
    console.log(
      `   since ${dateFrom}: ${transactions.booked.length} booked, ${transactions.pending.length} pending; the latest:`,
    );
    for (const transaction of transactions.booked.slice(0, 3))
      console.log(
        `     ${transaction.bookingDate} ${transaction.amount.padStart(9)} ${transaction.currency} ${transaction.remittanceInformation ?? ''}`,
      );

    say('Pay 12.50 from the account (POST /api/8/payment/iban, then POST /api/8/payment to confirm)');
    const payment = bodyOf(
      await asUser.POST('/api/8/payment/iban', {
        body: {
          ibanId: account.ibanId,
          creditorIban: 'BG80BNBG96611020345678',
          creditorName: 'Sofia Water',
          amount: '12.50',
          currency: account.currency,
        },
      }),
      201,
      'payment/iban',
    );
    show('payment', { code: payment.code, status: payment.status, state: payment.state });
    console.log(`   workflow: ${workflowLink(`ob-payment-${payment.code}`)}`);
    const confirmed = bodyOf(
      await asUser.POST('/api/8/payment', {
        params: { header: { 'user-agent': userAgent } },
        body: { code: payment.code, scaMethod: 'REDIRECT' },
      }),
      200,
      'payment confirmation',
    );
    const paymentScaUrl = confirmed.sca?.redirectUrl;
    if (!paymentScaUrl) throw new Error(`no SCA redirect for the payment: ${JSON.stringify(confirmed)}`);
    console.log(`   ${confirmed.state}; SCA page: ${paymentScaUrl}`);

    say('The customer approves the payment at the bank (SCA page over HTTP as alice); the bank executes it');
    await driveSca(paymentScaUrl, { ...SANDBOX_PSU, decision: 'approve', submit: true });
    console.log('   GET the SCA page, POST login (alice / sandbox-alice), POST decision=approve');
    const settled = await until(
      'the payment to settle',
      async () => {
        const status = bodyOf(
          await asUser.GET('/api/8/payment/status', { params: { query: { code: payment.code } } }),
          200,
          'payment status',
        );
        return status.status === 'WAITING' ? undefined : status;
      },
      30_000,
    );
    show('payment', settled);
    if (settled.status !== 'CONFIRMED') throw new Error(`the payment ended ${settled.status}`);
    console.log(`   workflow: ${workflowLink(`ob-payment-${payment.code}`)}`);

    const search = `PlatformService="openbanking" AND UserId="${customer.userId}"`;
    console.log(
      `\n   The customer's consent workflows: ${uiUrl}/namespaces/${namespace}/workflows?query=${encodeURIComponent(search)}`,
    );
    console.log(`   The open-banking reference: ${base}/docs`);
    if (integrator.rejected.length > 0) show('hook calls refused (bad signature)', integrator.rejected);
  } finally {
    await integrator.stop();
  }
}

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
