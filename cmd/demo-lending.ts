import { randomBytes } from 'node:crypto';
import { createLendingClient } from '../clients/src/lending.ts';
import { systemDocumentTypes } from '../domain/lending/loan-documents.ts';
import { loanWorkflowId } from '../domain/lending/loan-process.ts';
import { bodyOf, expectStatus, printCalls } from './demo-client.ts';
import type { SandboxParties } from './sandbox-parties.ts';

/**
 * The lending part of `npm run demo`: a loan from application to Active over the public API, as a
 * lender's site and its back office drive it with the typed client (clients/src/lending.ts), with the sandbox lender `npm start` provisioned (its keys
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

export async function demoLending({ apiUrl, parties, say, show, workflowLink, until }: LendingDemoContext) {
  const { lending } = parties;
  /** The lender's site (front-office key, then the customer's token) and its back office (management key). */
  const client = (apiKey: string, userAuthToken?: string) => {
    const lendingClient = createLendingClient(apiUrl, {
      apiKey,
      ...(userAuthToken ? { userAuthToken } : {}),
    });
    lendingClient.use(printCalls());
    return lendingClient;
  };
  const site = client(lending.keys.frontOffice);
  const management = client(lending.keys.management);

  say(`Lending: the sandbox lender ${lending.tenantId} (its keys from npm start); a customer registers`);
  const login = `demo-${randomBytes(4).toString('hex')}@example.com`;
  const registered = bodyOf(
    await site.POST('/PublicApi/v7-12/Customer/Register', {
      params: { query: { login, password: `pw-${randomBytes(9).toString('base64url')}` } },
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
    }),
    201,
    'Customer/Register',
  );
  const customer = client(lending.keys.frontOffice, registered.userAuthToken);
  show('customer', { customerId: registered.customerId, login, userAuthToken: '(kept by the site)' });

  say('Apply for 3000 EUR over 12 months and have it processed (the sandbox credit bureau decides)');
  const terms = { productName: lending.productName, amount: '3000.00', term: 12 };
  const created = bodyOf(
    await customer.POST('/PublicApi/v7-12/Customer/Loans/Create', { body: terms }),
    201,
    'Loans/Create',
  );
  const { loanId } = created;
  const loanPath = { params: { path: { loanId } } };
  console.log(`   workflow: ${workflowLink(loanWorkflowId(lending.tenantId, loanId))}`);
  expectStatus(
    await customer.POST('/PublicApi/v7-12/Customer/Loans/{loanId}/Process', loanPath),
    200,
    'Process',
  );
  const decided = await until("the credit bureau's decision", async () => {
    const loan = bodyOf(
      await customer.GET('/PublicApi/v7-12/Customer/Loans/{loanId}', loanPath),
      200,
      'read loan',
    );
    return ['Origination', 'Reprocessing', 'Collateral'].includes(loan.status) ? undefined : loan;
  });
  show('decided', { status: decided.status, offers: decided.offers });
  if (decided.status !== 'Offer confirmation') throw new Error(`the loan was ${decided.status}`);

  say('Accept the offer: a code per document is texted to the customer (read at the sandbox handset)');
  expectStatus(
    await customer.POST('/PublicApi/v7-12/Customer/Loans/{loanId}/AcceptLoanOffer', {
      params: { path: { loanId }, query: { offerId: decided.offers?.[0]?.offerId ?? `${loanId}-1` } },
    }),
    200,
    'AcceptLoanOffer',
  );
  const handset = `${parties.sandboxProvidersUrl}/handset/${PHONE.replace('+', '')}.json`;
  for (const { docTypeId, name } of systemDocumentTypes) {
    const code = await until(`the code for the ${name}`, async () => {
      const { messages } = (await (await fetch(handset)).json()) as { messages: { text: string }[] };
      const sms = messages.find((message) => message.text.includes(`the ${name} of loan ${loanId}`));
      return sms ? /^(\d{6}) is your code/.exec(sms.text)?.[1] : undefined;
    });
    console.log(`   GET ${handset}: "${code} is your code to sign the ${name} of loan ${loanId}…"`);
    expectStatus(
      await customer.POST('/PublicApi/v7-12/Customer/Loans/{loanId}/SignDocument', {
        params: { path: { loanId }, query: { docTypeId, code } },
      }),
      200,
      'SignDocument',
    );
  }

  say('The back office approves and registers the disbursement (Management API): the loan is Active');
  expectStatus(
    await management.POST('/PublicApi/v7-12/Management/Loans/{loanId}/Approve', {
      params: { path: { loanId }, query: { comments: 'documents signed (npm run demo)' } },
    }),
    200,
    'Approve',
  );
  const active = bodyOf(
    await management.POST('/PublicApi/v7-12/Management/Loans/Disbursements', {
      body: { loanId, amount: '3000.00', date: new Date().toISOString().slice(0, 10) },
    }),
    200,
    'Disbursements',
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
