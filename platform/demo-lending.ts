import { randomBytes } from 'node:crypto';
import { systemDocumentTypes } from '../domain/lending/loan-documents.ts';
import { loanWorkflowId } from '../domain/lending/loan-process.ts';
import type { SandboxParties } from './sandbox-parties.ts';

/**
 * The lending part of `npm run demo`: a loan from application to Active over the public API, as a
 * lender's site and its back office drive it, with the sandbox lender `npm start` provisioned (its keys
 * in DATA_DIR/sandbox-parties.json). The customer registers with complete details, applies, the sandbox
 * credit bureau decides, the customer accepts the offer and signs both documents with the codes texted
 * to their phone (read at the sandbox handset), management approves and registers the disbursement.
 */

export interface LendingDemoContext {
  apiUrl: string;
  parties: Pick<SandboxParties, 'lending' | 'sandboxProvidersUrl'>;
  say: (text: string) => void;
  show: (label: string, value: unknown) => void;
  workflowLink: (workflowId: string) => string;
  until: <T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number) => Promise<T>;
}

/** A number the messaging gateway accepts; the signing codes go to its sandbox handset. */
const PHONE = '+12025550143';

interface Loan {
  loanId: string;
  status: string;
  offers?: { offerId: string }[];
}

export async function demoLending({ apiUrl, parties, say, show, workflowLink, until }: LendingDemoContext) {
  const { lending } = parties;
  const base = `${apiUrl}/lending/PublicApi/v7-12`;
  let token = '';
  const call = async <T = Loan>(
    key: 'frontOffice' | 'management',
    method: string,
    route: string,
    { query = {}, body }: { query?: Record<string, string>; body?: unknown } = {},
  ): Promise<T> => {
    const url = new URL(`${base}${route}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    const response = await fetch(url, {
      method,
      headers: {
        lender_ApiKey: lending.keys[key],
        ...(key === 'frontOffice' && token ? { lender_UserAuthToken: token } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    console.log(`   ${method} /lending/PublicApi/v7-12${route} → ${response.status}`);
    if (response.status >= 400) throw new Error(`${method} ${route} failed: ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };

  say(`Lending: the sandbox lender ${lending.tenantId} (its keys from npm start); a customer registers`);
  const login = `demo-${randomBytes(4).toString('hex')}@example.com`;
  const registered = await call<{ userAuthToken: string; customerId: string }>(
    'frontOffice',
    'POST',
    '/Customer/Register',
    {
      query: { login, password: `pw-${randomBytes(9).toString('base64url')}` },
      body: {
        firstName: 'Jane',
        lastName: 'Doe',
        birthDate: '1990-04-01',
        email: login,
        phone: PHONE,
        ssn: '123-45-6789',
        address: {
          line1: '12 Main Street',
          city: 'Springfield',
          state: 'CA',
          postalCode: '90210',
          country: 'US',
        },
      },
    },
  );
  token = registered.userAuthToken;
  show('customer', { customerId: registered.customerId, login, userAuthToken: '(kept by the site)' });

  say('Apply for 3000 EUR over 12 months and have it processed (the sandbox credit bureau decides)');
  const terms = { productName: lending.productName, amount: '3000.00', term: 12 };
  const created = await call('frontOffice', 'POST', '/Customer/Loans/Create', { body: terms });
  const { loanId } = created;
  console.log(`   workflow: ${workflowLink(loanWorkflowId(lending.tenantId, loanId))}`);
  await call('frontOffice', 'POST', `/Customer/Loans/${loanId}/Process`);
  const decided = await until("the credit bureau's decision", async () => {
    const loan = await call('frontOffice', 'GET', `/Customer/Loans/${loanId}`);
    return ['Origination', 'Reprocessing', 'Collateral'].includes(loan.status) ? undefined : loan;
  });
  show('decided', { status: decided.status, offers: decided.offers });
  if (decided.status !== 'Offer confirmation') throw new Error(`the loan was ${decided.status}`);

  say('Accept the offer: a code per document is texted to the customer (read at the sandbox handset)');
  await call('frontOffice', 'POST', `/Customer/Loans/${loanId}/AcceptLoanOffer`, {
    query: { offerId: decided.offers?.[0]?.offerId ?? `${loanId}-1` },
  });
  const handset = `${parties.sandboxProvidersUrl}/handset/${PHONE.replace('+', '')}.json`;
  for (const { docTypeId, name } of systemDocumentTypes) {
    const code = await until(`the code for the ${name}`, async () => {
      const { messages } = (await (await fetch(handset)).json()) as { messages: { text: string }[] };
      const sms = messages.find((message) => message.text.includes(`the ${name} of loan ${loanId}`));
      return sms ? /^(\d{6}) is your code/.exec(sms.text)?.[1] : undefined;
    });
    console.log(`   GET ${handset}: "${code} is your code to sign the ${name} of loan ${loanId}…"`);
    await call('frontOffice', 'POST', `/Customer/Loans/${loanId}/SignDocument`, {
      query: { docTypeId, code },
    });
  }

  say('The back office approves and registers the disbursement (Management API): the loan is Active');
  await call('management', 'POST', `/Management/Loans/${loanId}/Approve`, {
    query: { comments: 'documents signed (npm run demo)' },
  });
  const active = await call<Loan & { servicing?: { nextDueDate?: string; payoffAmount?: string } }>(
    'management',
    'POST',
    '/Management/Loans/Disbursements',
    { body: { loanId, amount: '3000.00', date: new Date().toISOString().slice(0, 10) } },
  );
  show('loan', {
    loanId,
    status: active.status,
    nextDueDate: active.servicing?.nextDueDate,
    payoffAmount: active.servicing?.payoffAmount,
  });
  if (active.status !== 'Active') throw new Error(`the loan is ${active.status}, not Active`);
  console.log(`   workflow: ${workflowLink(loanWorkflowId(lending.tenantId, loanId))}`);
  console.log(`   The lending reference: ${apiUrl}/lending/docs`);
}
