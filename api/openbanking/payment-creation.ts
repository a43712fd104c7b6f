import { createRoute, type z } from '@hono/zod-openapi';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { USER_SECURITY } from './identity.ts';
import { createdSchema, userAgentHeaders } from './payment-schemas.ts';

/**
 * The route of the four operations that create a single payment (`POST payment/iban`, `payment/direct`,
 * `budget-request`, `budget-request/no-iban`): the same method, tag, security, headers and answer
 * (201 PaymentCreated), each with its own path, words and body (composed of the parts in
 * payment-schemas.ts). The use cases: application/openbanking/payment/create.ts.
 */
export const paymentCreationRoute = <const P extends string, B extends z.ZodType>(operation: {
  path: P;
  operationId: string;
  summary: string;
  description: string;
  body: B;
}) =>
  createRoute({
    method: 'post',
    path: operation.path,
    operationId: operation.operationId,
    tags: ['Payment initiation'],
    summary: operation.summary,
    description: operation.description,
    security: USER_SECURITY,
    request: { headers: userAgentHeaders, body: jsonBody(operation.body) },
    responses: {
      201: { description: 'Created', content: { 'application/json': { schema: createdSchema } } },
      ...errorResponses,
    },
  });
