import { randomBytes } from 'node:crypto';
import { systemDocumentTypes } from '../domain/lending/loan-documents.ts';
import type { BenchContext, StackInfo } from './context.ts';
import { CONNECTIONS, pause, runLoad } from './load.ts';

/**
 * The lending section's set-up, over the stack's HTTP APIs as the operator and a lender's site do it: a
 * tenant with its keys and a credit product through the admin API, customers through Customer/Register;
 * and what the customers' phones would show, the signing codes (see signingCodeWatcher).
 */

export interface LendingSetUp {
  tenantId: string;
  keys: { frontOffice: string; management: string };
  productName: string;
  /** Registers `count` customers with complete details, CONNECTIONS at a time; answers their tokens. */
  registerCustomers(count: number): Promise<string[]>;
  /** The tenant's loan workflows matching `where`, once visibility shows `expected` or stops changing. */
  settledCount(where: string, expected: number): Promise<number>;
}

/** Calls a spec path of the lending API; anything but a 2xx throws with the answer. */
export async function lendingCall(
  stack: Pick<StackInfo, 'apiUrl'>,
  method: 'GET' | 'POST',
  path: string,
  request: { key: string; token?: string; query?: Record<string, string>; body?: unknown },
): Promise<Record<string, unknown>> {
  const url = new URL(`${stack.apiUrl}/lending/PublicApi/v7-12${path}`);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  const response = await fetch(url, {
    method,
    headers: {
      lender_ApiKey: request.key,
      ...(request.token ? { lender_UserAuthToken: request.token } : {}),
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const text = await response.text();
  if (response.status < 200 || response.status > 299)
    throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
}

/** An admin call (ADMIN_TOKEN) of the stack; anything but a 2xx throws. */
async function admin<T>(stack: StackInfo, method: 'POST' | 'PUT', path: string, body: unknown): Promise<T> {
  const response = await fetch(`${stack.apiUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status < 200 || response.status > 299)
    throw new Error(`admin ${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** A tenant, a front-office and a management key, and a product lending up to `maxTerm` months. */
export async function setUpLendingTenant(context: BenchContext, maxTerm: number): Promise<LendingSetUp> {
  const { stack, client } = context;
  const { tenantId } = await admin<{ tenantId: string }>(stack, 'POST', '/lending/tenants', {
    name: `Bench lender ${randomBytes(3).toString('hex')}`,
  });
  const key = async (permission: 'front_office' | 'management') =>
    (
      await admin<{ apiKey: string }>(stack, 'POST', `/lending/tenants/${tenantId}/api-keys`, {
        permissions: [permission],
        label: 'bench',
      })
    ).apiKey;
  const keys = { frontOffice: await key('front_office'), management: await key('management') };
  const productName = 'Bench personal';
  await admin(
    stack,
    'PUT',
    `/lending/tenants/${tenantId}/credit-products/${encodeURIComponent(productName)}`,
    {
      currency: 'EUR',
      secured: false,
      amount: { min: '500.00', max: '500000.00' },
      term: { min: 3, max: maxTerm },
      annualInterestRate: '12',
      amortisation: 'equal_instalments',
    },
  );

  const count = async (where: string) =>
    (await client.workflow.count(`WorkflowType = 'lendingLoan' AND TenantId = '${tenantId}' AND ${where}`))
      .count;
  return {
    tenantId,
    keys,
    productName,
    async registerCustomers(total) {
      console.log(`  registering ${total} customers...`);
      const tokens: string[] = [];
      const registered = await runLoad(total, CONNECTIONS, async () => {
        const answer = await lendingCall(stack, 'POST', '/Customer/Register', {
          key: keys.frontOffice,
          query: {
            login: `bench-${randomBytes(6).toString('hex')}@example.com`,
            password: `pw-${randomBytes(9).toString('base64url')}`,
          },
          body: {
            firstName: 'Jane',
            // The sandbox bureau approves every last name but its test names (sandbox/lending/bureau.ts).
            lastName: 'Doe',
            birthDate: '1990-04-01',
            email: `jane-${randomBytes(4).toString('hex')}@example.com`,
            phone: '+12025550143',
            ssn: '123-45-6789',
            address: {
              line1: '12 Main Street',
              city: 'Springfield',
              state: 'CA',
              postalCode: '90210',
              country: 'US',
            },
          },
        });
        tokens.push(String(answer.userAuthToken));
      });
      if (registered.firstFailure) throw new Error(`registering customers: ${registered.firstFailure}`);
      return tokens;
    },
    async settledCount(where, expected) {
      let last = -1;
      let steady = 0;
      for (let look = 0; look < 120; look++) {
        const now = await count(where);
        if (now === expected) return now;
        steady = now === last ? steady + 1 : 0;
        if (steady >= 10) return now;
        last = now;
        await pause(500);
      }
      return last;
    },
  };
}

const documentName = Object.fromEntries(systemDocumentTypes.map((type) => [type.name, type.docTypeId]));
const CODE_SMS = /^(\d{6}) is your code to sign the (.+) of loan (\d+)\./;

/**
 * The signing codes as the customers' phones would receive them: the messaging gateway keeps a code
 * message masked at rest, so they are read where they arrive, at the sandbox SMS carrier in the stack's
 * process (its control server): one request every `everyMs` for the new ones, not one per code.
 */
export function signingCodeWatcher(context: BenchContext, everyMs = 200) {
  const codes = new Map<string, string>();
  const waiting = new Map<string, () => void>();
  let after = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const answer = await context
        .control<{ texts: string[]; next: number }>(
          'GET',
          `/smsc-texts?${new URLSearchParams({ contains: ' is your code to sign ', after: String(after) })}`,
        )
        .catch(() => ({ texts: [], next: after }));
      for (const text of answer.texts) {
        const [, code, name, loanId] = CODE_SMS.exec(text) ?? [];
        const docTypeId = name && documentName[name];
        if (!code || !docTypeId) continue;
        codes.set(`${loanId}:${docTypeId}`, code);
        waiting.get(`${loanId}:${docTypeId}`)?.();
      }
      after = answer.next;
      await pause(everyMs);
    }
  })();
  return {
    /** The code sent for the loan's document (the one AcceptLoanOffer sent: the bench asks for no other). */
    async codeFor(loanId: string, docTypeId: string, timeoutMs = 60_000): Promise<string> {
      const key = `${loanId}:${docTypeId}`;
      if (!codes.has(key))
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            waiting.delete(key);
            reject(new Error(`no signing code for ${key} within ${timeoutMs / 1000} s`));
          }, timeoutMs);
          waiting.set(key, () => {
            clearTimeout(timer);
            waiting.delete(key);
            resolve();
          });
        });
      const code = codes.get(key) as string;
      // Used once: the map stays small over a thousand loans.
      codes.delete(key);
      return code;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
