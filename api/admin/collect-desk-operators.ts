import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { collect } from '../../application/collect/index.ts';
import { MIN_PASSWORD_LENGTH } from '../../credentials/collect/desk-operators.ts';
import { DESK_LOGIN_PATTERN, deskOfficeKinds, OFFICE_ID_PATTERN } from '../../domain/collect/desk.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/** Operator endpoint: create a cash-desk operator (an office counter or an ATM), decision 0030. */
const createDeskOperatorRoute = createRoute({
  method: 'post',
  path: '/collect/desk-operators',
  tags: ['Admin'],
  summary: 'Create a cash-desk operator',
  description:
    'Creates an operator of an office or ATM and answers its password once (generated unless given); only a ' +
    'scrypt hash is kept. The operator logs in at POST /collect/desk/api/sessions or on the page /collect/desk. ' +
    '409 `desk_operator_exists` when the login is taken.',
  request: {
    body: jsonBody(
      z.object({
        login: z
          .string()
          .regex(DESK_LOGIN_PATTERN, '3-64 lower-case letters, digits, . _ -')
          .openapi({ example: 'sofia-01' }),
        name: z.string().trim().min(1).max(200).openapi({ example: 'Maria Ivanova, Sofia office 1' }),
        officeId: z
          .string()
          .regex(OFFICE_ID_PATTERN, 'must be 6 digits')
          .openapi({ description: 'The office or ATM (its BCODE and billing AID)', example: '000123' }),
        officeKind: z.enum(deskOfficeKinds).default('office'),
        password: z
          .string()
          .min(MIN_PASSWORD_LENGTH)
          .max(200)
          .optional()
          .openapi({
            description: `Chosen password (at least ${MIN_PASSWORD_LENGTH} characters); generated when absent`,
          }),
      }),
    ),
  },
  responses: {
    201: {
      description: 'Created',
      content: {
        'application/json': {
          schema: z
            .object({
              id: z.string(),
              login: z.string(),
              name: z.string(),
              officeId: z.string(),
              officeKind: z.enum(deskOfficeKinds),
              password: z.string().openapi({ description: 'Shown once; only its scrypt hash is kept' }),
            })
            .openapi('CreatedDeskOperator'),
        },
      },
    },
    ...errorResponses,
    409: { description: 'Login taken', content: errorResponses[400].content },
  },
});

export function registerDeskOperatorAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createDeskOperatorRoute, async (c) => {
    return c.json(await collect.createOperator(c.get('deps'), c.req.valid('json')), 201);
  });
}
