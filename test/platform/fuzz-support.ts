import { afterAll, beforeAll } from 'vitest';
import { computeChecksum } from '../../domain/collect/checksum.ts';
import { createCreditProduct } from '../lending/products-support.ts';
import { completeDetails, createLendingTenant, lendingCall, registerCustomer } from '../lending/support.ts';
import { enrolUser, openBankingClient } from '../support/openbanking-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * What the fuzz suites (fuzz-operations.test.ts, fuzz-malformed-input.test.ts) share: a platform with a
 * credential of every kind the services' OpenAPI documents name (a lending customer with a loan, an
 * investor, open-banking agent and user, a collect merchant), the documents themselves, and signed
 * ePay packets of the merchant.
 */

export type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  pattern?: string;
};
export interface Parameter {
  in: 'query' | 'path' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
  example?: unknown;
}
export interface OperationObject {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, string[]>[];
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema> };
  security?: Record<string, string[]>[];
}

/** Invoices in order (each test file has a database of its own), so a seed replays exactly. */
let invoice = 100_000;
export const GOOD_INVOICE = () => String(++invoice);

export let platform: TestPlatform;
export const credentials = {
  messagingToken: '',
  merchant: { min: '', secret: '' },
  oneTouchAppId: '',
  agentHash: '',
  publicHash: '',
  userHash: '',
  adminHash: '',
  userToken: '',
  lendingKey: '',
  lendingToken: '',
  lendingCustomerId: '',
  lendingLoanId: '',
  /** Investor/* acts for an investor (decision 0052): its token replaces the customer's there. */
  lendingInvestorToken: '',
};
export const documents: Record<string, OpenApiDocument> = {};

export const SERVICES = ['messaging', 'collect', 'openbanking', 'lending'] as const;

/** Starts the platform with every credential before the file's tests, and stops it after them. */
export function setUpFuzzPlatform(): void {
  beforeAll(async () => {
    platform = await startTestPlatform();
    credentials.messagingToken = platform.token;
    credentials.merchant = await platform.createMerchant();
    credentials.oneTouchAppId = (await platform.createOneTouchApp()).appId;
    const agent = await platform.openBanking.createAgent();
    credentials.agentHash = agent.agentHash;
    credentials.publicHash = agent.publicHash;
    credentials.adminHash = (await platform.openBanking.createAdminHash()).adminHash;
    const call = openBankingClient(platform.openBanking.url);
    credentials.userHash = (await enrolUser(call, agent.agentHash)).userHash;
    const token = await call<{ token: string }>('POST', '/api/8/usertoken', {
      headers: { 'x-user-hash': credentials.userHash },
    });
    credentials.userToken = token.body.token;
    const tenant = await createLendingTenant(platform);
    await createCreditProduct(platform, tenant.tenantId, { name: 'Car loan', secured: true });
    credentials.lendingKey = tenant.keys.all;
    const customer = await registerCustomer(platform, tenant, completeDetails());
    credentials.lendingToken = customer.token;
    credentials.lendingCustomerId = customer.customerId;
    const loan = await lendingCall<{ loanId: string }>(platform, 'POST', '/Customer/Loans/Create', {
      key: tenant.keys.frontOffice,
      token: customer.token,
      body: { productName: 'Car loan', amount: '5000', term: 12 },
    });
    if (loan.status !== 201)
      throw new Error(`Customer/Loans/Create: ${loan.status} ${JSON.stringify(loan.body)}`);
    credentials.lendingLoanId = String(loan.body.loanId);
    const investor = await lendingCall<{ userAuthToken: string }>(platform, 'POST', '/Investor/Register', {
      key: tenant.keys.frontOffice,
      query: { login: 'fuzz-investor@example.com', password: 'fuzz-investor-password' },
    });
    credentials.lendingInvestorToken = investor.body.userAuthToken;
    for (const service of SERVICES) {
      documents[service] = (await (
        await fetch(`${platform.apiUrl}/${service}/openapi.json`)
      ).json()) as never;
    }
  });
  afterAll(async () => {
    await platform?.stop();
  });
}

export const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A signed ePay packet of the merchant: ENCODED and CHECKSUM query values (percent-encoded). */
export function packetParams(lines: string[] | Buffer): Record<string, string> {
  const encoded = Buffer.from(Array.isArray(lines) ? lines.join('\n') : lines).toString('base64');
  return {
    ENCODED: encodeURIComponent(encoded),
    CHECKSUM: computeChecksum(encoded, credentials.merchant.secret),
  };
}

export function basePacket(): string[] {
  return [
    `MIN=${credentials.merchant.min}`,
    `INVOICE=${GOOD_INVOICE()}`,
    'AMOUNT=12.50',
    'EXP_TIME=01.01.2035',
    'DESCR=fuzz',
  ];
}
