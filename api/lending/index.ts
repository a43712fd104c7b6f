import { OpenAPIHono } from '@hono/zod-openapi';
import { referencePage } from '../shared/docs.ts';
import { validationHook } from '../shared/errors.ts';
import { mountOperations, type Operation } from '../shared/operation.ts';
import { registerWebhookRoutes } from '../shared/webhook-routes.ts';
import { lendingCredentialGate, lendingSecurity, registerLendingSecuritySchemes } from './auth.ts';
import { registerCollectNotificationRoute } from './collect-notifications.ts';
import type { LendingEnv } from './context.ts';
import { creditProductOperations } from './credit-product-operations.ts';
import { customerOperations, userOperations } from './customer-operations.ts';
import { disbursementOperations } from './disbursement-operations.ts';
import { documentOperations } from './document-operations.ts';
import { fileOperations } from './file-operations.ts';
import { investorOperations } from './investor-operations.ts';
import { loanOperations } from './loan-operations.ts';
import { paymentOptionsOperations } from './payment-options-operations.ts';
import { referenceDataOperations } from './reference-data-operations.ts';

/** Every operation of the lending platform (api/shared/operation.ts). */
export const lendingOperations: readonly Operation<LendingEnv>[] = [
  ...userOperations,
  ...customerOperations,
  ...creditProductOperations,
  ...loanOperations,
  ...disbursementOperations,
  ...documentOperations,
  ...paymentOptionsOperations,
  ...investorOperations,
  ...referenceDataOperations,
  ...fileOperations,
];

/**
 * The lending platform, mounted under /lending: every tenant's interface at `/PublicApi/v7-12/...`
 * (the tenant is the `lender_ApiKey`'s; api/lending/auth.ts), the reference at /lending/docs and the
 * OpenAPI document at /lending/openapi.json.
 */
export function createLendingApi(): OpenAPIHono<LendingEnv> {
  const app = new OpenAPIHono<LendingEnv>({ defaultHook: validationHook });
  registerLendingSecuritySchemes(app);
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Lending platform',
      version: 'v7-12',
      description:
        'Customers, investors, users, credit products, loans and files of every tenant, at `/lending/PublicApi/v7-12/...`. ' +
        'Every call carries a `lender_ApiKey` (the tenant is the key’s; its permission levels open the modules: ' +
        'Front-office → Customer, Investor, User, Dictionary, Settings, Vendors, Files, UserDocuments; Management → ' +
        'Management and the Migration aliases; Payment options → PaymentOptions); operations that act for a person ' +
        'also carry a `lender_UserAuthToken` from Customer/Register, Investor/Register or User/Login. Errors: ' +
        '`{ "error": { "code", "message", "fields"? } }`.',
    },
    servers: [{ url: '/lending' }],
    security: [{ lenderApiKey: [] }],
  });
  app.get('/docs', (c) => c.html(referencePage('Lending platform API', '/lending/openapi.json')));
  mountOperations(app, lendingOperations, { credentialGate: lendingCredentialGate });
  // Called by the collection gateway, not a tenant's key: outside the PublicApi tree and its gate.
  registerCollectNotificationRoute(app);
  // Lending events (beyond the spec, decision 0088): the tenant's webhook endpoints and deliveries, with a
  // Management key, checked before the request is validated.
  app.use('/webhooks/*', lendingCredentialGate(lendingSecurity.apiKey, 'management'));
  registerWebhookRoutes(app, { service: 'lending', ownerOf: (c) => c.get('lendingTenant').id });
  return app;
}
