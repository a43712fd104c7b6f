import { OpenAPIHono } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import type { AppEnv } from '../shared/context.ts';
import { referencePage } from '../shared/docs.ts';
import { validationHook } from '../shared/errors.ts';
import { mountOperations, type Operation } from '../shared/operation.ts';
import { registerWebhookRoutes } from '../shared/webhook-routes.ts';
import { accountListOperation } from './account-list.ts';
import { agentAisEmailOperation } from './agent-ais-email.ts';
import { agentUserOperation } from './agent-user.ts';
import { agentUserCheckOperation } from './agent-user-check.ts';
import { agentUsersOperation } from './agent-users.ts';
import { aisStartShowOperation } from './ais-start-show.ts';
import { aisStartSubmitOperation } from './ais-start-submit.ts';
import { auditByBankOperation } from './audit-by-bank.ts';
import { balanceOperation } from './balance.ts';
import { bankOperation } from './bank.ts';
import { banksGetOperation } from './banks-get.ts';
import { banksListOperation } from './banks-list.ts';
import { budgetRequestOperation } from './budget-request.ts';
import { budgetRequestNoIbanOperation } from './budget-request-no-iban.ts';
import { bulkPaymentsBudgetPaymentOperation } from './bulk-payments-budget-payment.ts';
import { bulkPaymentsBudgetRequestOperation } from './bulk-payments-budget-request.ts';
import { bulkPaymentsPaymentOperation } from './bulk-payments-payment.ts';
import { bulkPaymentsRequestOperation } from './bulk-payments-request.ts';
import { bulkPaymentsSearchOperation } from './bulk-payments-search.ts';
import { bulkPaymentsStatusOperation } from './bulk-payments-status.ts';
import { cacheInitialOperation } from './cache-initial.ts';
import { cgateConsentsRequestCreateOperation } from './cgate-consents-request-create.ts';
import { cgateConsentsRequestListOperation } from './cgate-consents-request-list.ts';
import { cgateUiConsentsRequestOperation } from './cgate-ui-consents-request.ts';
import { consentOperation } from './consent.ts';
import { consentIbanOperation } from './consent-iban.ts';
import { consentScaOperation } from './consent-sca.ts';
import { consentsOperation } from './consents.ts';
import { createhookOperation } from './createhook.ts';
import { ibanOperation } from './iban.ts';
import { ibansOperation } from './ibans.ts';
import { idStatusOperation } from './id-status.ts';
import { AGENT_SECURITY, credentialGate, registerIdentitySchemes, requireAgent } from './identity.ts';
import { kycUpdateOperation } from './kyc-update.ts';
import { pagedTransactionsOperation } from './paged-transactions.ts';
import { paymentCancelOperation } from './payment-cancel.ts';
import { paymentConfirmOperation, paymentConfirmPutOperation } from './payment-confirm.ts';
import { paymentDirectOperation } from './payment-direct.ts';
import { paymentDirectInitiateOperation } from './payment-direct-initiate.ts';
import { paymentIbanOperation } from './payment-iban.ts';
import { paymentIbansOperation } from './payment-ibans.ts';
import { paymentScaOperation } from './payment-sca.ts';
import { paymentStatusOperation } from './payment-status.ts';
import { paymentVerifySmsOperation } from './payment-verify-sms.ts';
import { paymentsOperation } from './payments.ts';
import { paymentsSearchLastUpdatedOperation } from './payments-search-last-updated.ts';
import { redirectOperation } from './redirect.ts';
import { redirectStateOAuthOperation, redirectStateOperation } from './redirect-state.ts';
import { reportsActiveUsersOperation } from './reports-active-users.ts';
import { reportsActiveUsersDetailsOperation } from './reports-active-users-details.ts';
import { reportsBankMaintenanceOperation } from './reports-bank-maintenance.ts';
import { signupOperation } from './signup.ts';
import { signupAgentOperation } from './signup-agent.ts';
import { statusOperation } from './status.ts';
import { tokensOperation } from './tokens.ts';
import { transactionsGetOperation } from './transactions-get.ts';
import { transactionsListOperation } from './transactions-list.ts';
import { usertokenOperation } from './usertoken.ts';
import { API_VERSIONS, type ApiVersion, documentOfVersion } from './versions.ts';
import { wellKnownJwksJsonOperation } from './well-known-jwks-json.ts';
import { wellKnownJwksJson2Operation } from './well-known-jwks-json2.ts';

/**
 * Every operation of the gateway, one file per spec operation named after its path (decision 0025),
 * each mounted in the versions it lists (api/shared/operation.ts). Add an operation as one more line.
 */
export const openBankingOperations: readonly Operation<AppEnv, ApiVersion>[] = [
  // Agents, users, hooks, identity and signed tokens
  signupAgentOperation,
  signupOperation,
  usertokenOperation,
  idStatusOperation,
  kycUpdateOperation,
  agentUsersOperation,
  agentUserCheckOperation,
  agentUserOperation,
  consentIbanOperation,
  agentAisEmailOperation,
  cacheInitialOperation,
  cgateConsentsRequestCreateOperation,
  cgateConsentsRequestListOperation,
  cgateUiConsentsRequestOperation,
  createhookOperation,
  redirectOperation,
  wellKnownJwksJsonOperation,
  wellKnownJwksJson2Operation,
  // Banks
  banksListOperation,
  banksGetOperation,
  bankOperation,
  reportsBankMaintenanceOperation,
  // Consents and account information
  consentOperation,
  consentScaOperation,
  redirectStateOperation,
  redirectStateOAuthOperation,
  ibansOperation,
  balanceOperation,
  transactionsListOperation,
  transactionsGetOperation,
  pagedTransactionsOperation,
  accountListOperation,
  tokensOperation,
  consentsOperation,
  ibanOperation,
  aisStartShowOperation,
  aisStartSubmitOperation,
  // Payment initiation (single payments)
  paymentIbansOperation,
  paymentScaOperation,
  paymentIbanOperation,
  paymentDirectOperation,
  paymentDirectInitiateOperation,
  budgetRequestOperation,
  budgetRequestNoIbanOperation,
  paymentConfirmOperation,
  paymentConfirmPutOperation,
  paymentVerifySmsOperation,
  paymentStatusOperation,
  paymentCancelOperation,
  statusOperation,
  // Bulk payments, payment searches, reports and audit
  bulkPaymentsPaymentOperation,
  bulkPaymentsRequestOperation,
  bulkPaymentsBudgetPaymentOperation,
  bulkPaymentsBudgetRequestOperation,
  bulkPaymentsStatusOperation,
  bulkPaymentsSearchOperation,
  paymentsOperation,
  paymentsSearchLastUpdatedOperation,
  reportsActiveUsersOperation,
  reportsActiveUsersDetailsOperation,
  auditByBankOperation,
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
    if (!API_VERSIONS.includes(version)) throw Refusal.notFound(`${c.req.method} ${c.req.path}`);
    return c.json(documentOfVersion(app.getOpenAPI31Document(documentConfig), version));
  });
  app.get('/docs', (c) => c.html(referencePage('Open-banking gateway API', '/openbanking/openapi.json')));

  mountOperations(app, openBankingOperations, { credentialGate });
  // The hook calls' webhook endpoints and deliveries (beyond the spec): the agent's, by x-agent-hash,
  // checked before the request is validated (a caller without credentials learns nothing of its shape).
  app.use('/webhooks/*', async (c, next) => {
    await requireAgent(c);
    return next();
  });
  registerWebhookRoutes(app, {
    service: 'openbanking',
    ownerOf: async (c) => (await requireAgent(c)).agentId,
    security: AGENT_SECURITY,
  });
  return app;
}
