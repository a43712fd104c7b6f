import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { IDENTITY_HEADERS, optionalAgent, requireAdmin, security } from './identity.ts';
import { userRecordSchema } from './user-schemas.ts';

/**
 * `GET /api/8/agent/users`: the agent's users, a page at a time, filtered by enrolment day and text.
 */

export const USER_PAGE_SIZE = { default: 20, max: 100 } as const;

const isoDate = (description: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
    .refine((value) => {
      const day = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
    }, 'not a calendar date')
    .optional()
    .openapi({ description, example: '2026-11-01' });

const listQuery = z
  .object({
    page: z.coerce
      .number()
      .int()
      .min(1)
      .default(1)
      .openapi({ description: 'Page number, from 1', example: 1 }),
    size: z.coerce
      .number()
      .int()
      .min(1)
      .max(USER_PAGE_SIZE.max)
      .default(USER_PAGE_SIZE.default)
      .openapi({ description: `Users per page, 1-${USER_PAGE_SIZE.max}`, example: USER_PAGE_SIZE.default }),
    dateFrom: isoDate('Enrolled on or after this day (UTC)'),
    dateTo: isoDate('Enrolled on or before this day (UTC)'),
    text: z.string().trim().min(1).max(100).optional().openapi({
      description: 'Case-insensitive substring of name, middle name, family name, company, UIC or e-mail',
      example: 'ivanova',
    }),
  })
  .refine((query) => !query.dateFrom || !query.dateTo || query.dateFrom <= query.dateTo, {
    message: 'must not be after dateTo',
    path: ['dateFrom'],
  });

const userPageSchema = z
  .object({
    page: z.number().int(),
    size: z.number().int(),
    total: z.number().int().openapi({ description: 'Users matching the filters, all pages' }),
    items: z.array(userRecordSchema),
  })
  .openapi('UserPage');

export const agentUsersOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/agent/users',
      operationId: 'agentUsers',
      tags: ['Agent users'],
      summary: 'Users registered by the agent',
      description:
        'Live (not deleted) users, newest first. With `x-agent-hash`: the agent’s own users. The header is optional ' +
        'for operators: without it, `x-admin-hash` lists every agent’s users; with neither, 401. ' +
        `size 1-${USER_PAGE_SIZE.max} (default ${USER_PAGE_SIZE.default}); dateFrom after dateTo is 400.`,
      security: security(['agentHash'], ['adminHash']),
      request: { query: listQuery },
      responses: {
        200: { description: 'A page of users', content: { 'application/json': { schema: userPageSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const agent = await optionalAgent(c);
    if (!agent) {
      if (c.req.header(IDENTITY_HEADERS.admin) === undefined) {
        throw Refusal.unauthorized('The x-agent-hash header (or, for operators, x-admin-hash) is missing');
      }
      await requireAdmin(c);
    }
    const query = c.req.valid('query');
    return c.json(await openbanking.listUsers(c.get('deps'), { ...query, agentId: agent?.agentId }), 200);
  },
});
