import { createRoute, z } from '@hono/zod-openapi';
import { and, count, desc, eq, gte, ilike, isNull, lt, or, type SQL } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { obUsers } from '../../db/schema/openbanking.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { IDENTITY_HEADERS, optionalAgent, requireAdmin, security } from './identity.ts';
import { toUserRecord, userRecordSchema } from './user-records.ts';

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
    const { page, size, dateFrom, dateTo, text } = c.req.valid('query');
    const conditions: SQL[] = [isNull(obUsers.deletedAt)];
    if (agent) conditions.push(eq(obUsers.agentId, agent.agentId));
    if (dateFrom) conditions.push(gte(obUsers.createdAt, new Date(`${dateFrom}T00:00:00Z`)));
    if (dateTo)
      conditions.push(lt(obUsers.createdAt, new Date(Date.parse(`${dateTo}T00:00:00Z`) + 86_400_000)));
    if (text) {
      const pattern = `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      const columns = [
        obUsers.name,
        obUsers.middleName,
        obUsers.family,
        obUsers.companyName,
        obUsers.uic,
        obUsers.email,
      ];
      conditions.push(or(...columns.map((column) => ilike(column, pattern)))!);
    }
    const where = and(...conditions);
    const { db } = c.get('deps');
    const [rows, [total]] = await Promise.all([
      db
        .select()
        .from(obUsers)
        .where(where)
        .orderBy(desc(obUsers.createdAt), desc(obUsers.id))
        .limit(size)
        .offset((page - 1) * size),
      db.select({ value: count() }).from(obUsers).where(where),
    ]);
    return c.json(
      {
        page,
        size,
        total: total?.value ?? 0,
        items: rows.map((row) => toUserRecord(row, c.get('deps').config)),
      },
      200,
    );
  },
});
