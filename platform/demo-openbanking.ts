import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactVerify, createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { hookCallJws } from '../domain/openbanking/hook-events.ts';
import { driveSca } from '../sandbox/openbanking/sca-driver.ts';

/**
 * The open-banking part of `npm run demo`: what an integrator (an "agent") does over the public API of
 * the running platform. Enrol as an agent, sign up a customer, get a user token, register a hook and
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
  const call = async <T = Record<string, unknown>>(
    method: string,
    route: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await response.json()) as T;
    console.log(`   ${method} /openbanking${route.split('?')[0]} → ${response.status}`);
    return { status: response.status, body: answer };
  };
  const expect = <T>(answer: { status: number; body: T }, status: number, what: string): T => {
    if (answer.status !== status) throw new Error(`${what} failed: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  say('Open banking: enrol as an agent (POST /api/8/signup/agent, open to anyone in sandbox mode)');
  const enrolment = await call<{ agentId: string; agentHash: string; publicHash: string }>(
    'POST',
    '/api/8/signup/agent',
    {},
    { name: 'Demo fintech', email: 'dev@demo-fintech.example' },
  );
  if (enrolment.status === 401) {
    console.log(
      '   Skipped: in production mode an operator enrols agents (x-admin-hash); see docs/openbanking.md.',
    );
    return;
  }
  const agent = expect(enrolment, 201, 'agent enrolment');
  show('agent', { agentId: agent.agentId, agentHash: '(shown once; kept by the demo)' });
  const asAgent = { 'x-agent-hash': agent.agentHash };

  say('Sign up a customer (POST /api/8/signup with x-agent-hash)');
  const customer = expect(
    await call<{ userId: string; userHash: string; kycStatus: string }>('POST', '/api/8/signup', asAgent, {
      name: 'Alice',
      family: 'Ivanova',
      email: `alice.${Date.now()}@demo-fintech.example`,
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
    const issued = expect(
      await call<{ token: string; expiresAt: string; kid: string }>('POST', '/api/8/usertoken', {
        'x-user-hash': customer.userHash,
      }),
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
    const asUser = { authorization: `Bearer ${issued.token}` };

    say('Register a hook and the redirect URL (POST /api/8/createhook, PUT /api/8/redirect)');
    const hook = expect(
      await call<{ hookHash: string }>('POST', '/api/8/createhook', asUser, {
        url: integrator.hookUrl,
        events: ['consent.finished'],
      }),
      201,
      'createhook',
    );
    const redirect = new URLSearchParams({ hookhash: hook.hookHash, redirectUrl: integrator.redirectUrl });
    show('hook', expect(await call('PUT', `/api/8/redirect?${redirect}`, asUser), 200, 'PUT redirect'));
    console.log(`   the hook URL is a receiver in this process that verifies each call's JWS with the JWKS`);

    say('Pick the bank (GET /api/8/banks?country=BG)');
    const { banks } = expect(
      await call<{ banks: { bankHash: string; name: string }[] }>('GET', '/api/8/banks?country=BG', asUser),
      200,
      'banks',
    );
    const bank = banks.find((candidate) => candidate.name === 'Sandbox Bank A') ?? banks[0];
    if (!bank) throw new Error('no bank listed; is the bank directory reachable?');
    show('bank', bank);

    say('Start a consent (POST /api/8/consent): the gateway creates it at the bank');
    const consent = expect(
      await call<{ consentId: string; state: string; scaRedirectUrl: string; scaDeadline: string }>(
        'POST',
        '/api/8/consent',
        { ...asUser, 'user-agent': 'integration-platform-demo' },
        { bankHash: bank.bankHash, hookHash: hook.hookHash },
      ),
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
    const { ibans } = expect(
      await call<{ ibans: { ibanId: string; iban: string; currency: string; name: string }[] }>(
        'GET',
        '/api/8/ibans',
        { ...asUser, 'consent-details': 'true' },
      ),
      200,
      'ibans',
    );
    show(
      'ibans',
      ibans.map(({ ibanId, iban, currency, name }) => ({ ibanId, iban, currency, name })),
    );
    const account = ibans[0];
    if (!account) throw new Error('the consent added no account');
    const balance = expect(
      await call<{ balances: { balanceType: string; amount: string; currency: string }[] }>(
        'GET',
        `/api/8/balance/${account.ibanId}`,
        asUser,
      ),
      200,
      'balance',
    );
    show(
      `balances of ${account.iban}`,
      balance.balances.map(({ balanceType, amount, currency }) => `${balanceType} ${amount} ${currency}`),
    );
    const dateFrom = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const transactions = expect(
      await call<{
        booked: {
          bookingDate: string;
          amount: string;
          currency: string;
          remittanceInformation: string | null;
        }[];
        pending: unknown[];
      }>('GET', `/api/8/transactions/${account.ibanId}?dateFrom=${dateFrom}`, asUser),
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
    const payment = expect(
      await call<{ code: string; status: string; state: string }>('POST', '/api/8/payment/iban', asUser, {
        ibanId: account.ibanId,
        creditorIban: 'BG80BNBG96611020345678',
        creditorName: 'Sofia Water',
        amount: '12.50',
        currency: account.currency,
      }),
      201,
      'payment/iban',
    );
    show('payment', { code: payment.code, status: payment.status, state: payment.state });
    console.log(`   workflow: ${workflowLink(`ob-payment-${payment.code}`)}`);
    const confirmed = expect(
      await call<{ state: string; sca?: { method: string; redirectUrl?: string } }>(
        'POST',
        '/api/8/payment',
        { ...asUser, 'user-agent': 'integration-platform-demo' },
        { code: payment.code, scaMethod: 'REDIRECT' },
      ),
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
        const status = await call<{ status: string; state: string; bankTransactionStatus: string | null }>(
          'GET',
          `/api/8/payment/status?code=${payment.code}`,
          asUser,
        );
        return status.body.status === 'WAITING' ? undefined : status.body;
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
