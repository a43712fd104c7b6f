import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../shared/context.ts';
import { referencePage } from '../shared/docs.ts';
import { ApiError, validationHook } from '../shared/errors.ts';
import { mountOperations, type Operation } from '../shared/operation.ts';
import { accountListOperation } from './account-list.ts';
import { agentUserOperations } from './agent-users.ts';
import { agentOperations } from './agents.ts';
import { aisEmailOperations } from './ais-email.ts';
import { aisStartOperations } from './ais-start.ts';
import { balanceOperation } from './balance.ts';
import { getBankOperation } from './bank.ts';
import { bankMaintenanceOperation } from './bank-maintenance.ts';
import { bankScaOperation } from './bank-sca.ts';
import { listBanksOperation } from './banks.ts';
import { cacheOperations } from './cache.ts';
import { createConsentOperation } from './consent.ts';
import { consentByIbanOperations } from './consent-by-iban.ts';
import { accountConsentsOperation } from './consents.ts';
import { consentsRequestOperations } from './consents-requests.ts';
import { deleteIbanOperation } from './delete-iban.ts';
import { hookOperations } from './hooks.ts';
import { listIbansOperation } from './ibans.ts';
import { credentialGate, registerIdentitySchemes } from './identity.ts';
import { jwksOperations } from './jwks.ts';
import { kycOperations } from './kyc.ts';
import { pagedTransactionsOperation } from './paged-transactions.ts';
import { bankRedirectOperation } from './redirect.ts';
import { signupOperations } from './signup.ts';
import { tokensOperation } from './tokens.ts';
import { transactionOperation } from './transaction.ts';
import { transactionsOperation } from './transactions.ts';
import { userTokenOperations } from './user-token.ts';
import { API_VERSIONS, type ApiVersion, documentOfVersion } from './versions.ts';

/**
 * Every operation of the gateway, each mounted in the versions it lists (api/shared/operation.ts).
 * Add a service part's operations as one more spread line in its section.
 */
export const openBankingOperations: readonly Operation<AppEnv, ApiVersion>[] = [
  // Agents, users, hooks, identity and signed tokens
  ...agentOperations,
  ...signupOperations,
  ...userTokenOperations,
  ...kycOperations,
  ...agentUserOperations,
  ...consentByIbanOperations,
  ...aisEmailOperations,
  ...cacheOperations,
  ...consentsRequestOperations,
  ...hookOperations,
  ...jwksOperations,
  // Banks
  listBanksOperation,
  getBankOperation,
  bankScaOperation,
  bankMaintenanceOperation,
  // Consents and account information
  createConsentOperation,
  bankRedirectOperation,
  listIbansOperation,
  balanceOperation,
  transactionsOperation,
  transactionOperation,
  pagedTransactionsOperation,
  accountListOperation,
  tokensOperation,
  accountConsentsOperation,
  deleteIbanOperation,
  ...aisStartOperations,
];

const documentConfig = {
  openapi: '3.1.0',
  info: {
    title: 'Open-banking gateway',
    version: '9',
    description:
      'Agents, customers, consents with SCA, account information and signed webhooks. API versions 6, 7, 8 and 9 ' +
      'are served side by side under `/api/{version}`; an operation exists only in the versions it lists. ' +
      'One version only: `/openbanking/api/{version}/openapi.json`.',
  },
  servers: [{ url: '/openbanking' }],
};

/**
 * The open-banking gateway, mounted under /openbanking: `/api/{6,7,8,9}/...` with each operation
 * mounted in the versions the spec lists for it, plus the bank callback `/redirect/{app}/state/{state}`.
 * Reference: `/openbanking/docs`; OpenAPI: `/openbanking/openapi.json` (all versions) and
 * `/openbanking/api/{version}/openapi.json` (one version).
 */
export function createOpenBankingApi(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerIdentitySchemes(app);

  app.doc31('/openapi.json', documentConfig);
  app.get('/api/:version{[0-9]+}/openapi.json', (c) => {
    const version = Number(c.req.param('version')) as ApiVersion;
    if (!API_VERSIONS.includes(version)) throw ApiError.notFound(`${c.req.method} ${c.req.path}`);
    return c.json(documentOfVersion(app.getOpenAPI31Document(documentConfig), version));
  });
  app.get('/docs', (c) => c.html(referencePage('Open-banking gateway API', '/openbanking/openapi.json')));

  mountOperations(app, openBankingOperations, { credentialGate });
  return app;
}
