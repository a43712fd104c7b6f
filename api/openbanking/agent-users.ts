import { createRoute, z } from '@hono/zod-openapi';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { and, count, desc, eq, gte, ilike, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { obUsers } from '../../db/schema/openbanking.ts';
import { openBankingSearchAttributes, userDeletionWorkflowId } from '../../domain/openbanking/consents.ts';
import { userDeletedUpdate, userDeletion } from '../../workflows/openbanking/user-deletion.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  IDENTITY_HEADERS,
  optionalAgent,
  requireAdmin,
  requireAgent,
  requireAgentAndUser,
  resolveUserHash,
  security,
} from './identity.ts';
import { emailField, kycStatusField, toUserRecord, userRecordSchema } from './users.ts';

/**
 * The agent's user endpoints of version 8: the paged list of its users, the check of a user hash by
 * e-mail, and deletion (marks the user deleted and revokes its hashes; rows are kept).
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

const listUsers = defineOperation({
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
        throw ApiError.unauthorized('The x-agent-hash header (or, for operators, x-admin-hash) is missing');
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
    return c.json({ page, size, total: total?.value ?? 0, items: rows.map(toUserRecord) }, 200);
  },
});

const checkBody = z
  .object({
    email: emailField.openapi({ description: 'E-mail the user was enrolled with' }),
    userHash: z.string().max(200).optional().openapi({
      description: 'A user hash to check: does it belong to the user with this e-mail?',
      example: 'user_Zr5c...',
    }),
  })
  .openapi('UserCheckDTO');

const checkResult = z
  .object({
    registered: z.boolean().openapi({ description: 'A live user with this e-mail is enrolled by the agent' }),
    userId: z.string().nullable(),
    kycStatus: kycStatusField.nullable(),
    createdAt: z.string().nullable(),
    hashMatches: z.boolean().nullable().openapi({
      description: 'When `userHash` was sent: whether it is a valid hash of that user; otherwise null',
    }),
  })
  .openapi('UserCheckResult');

const checkUser = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/agent/user/check',
      operationId: 'agentUserCheck',
      tags: ['Agent users'],
      summary: 'Check a user (hash) by e-mail',
      description:
        'Whether the agent has enrolled a live user with this e-mail and, when `userHash` is sent, whether that hash ' +
        'is the user’s. Hashes are stored only as digests, so a lost hash cannot be shown again.',
      security: security(['agentHash']),
      request: { body: jsonBody(checkBody) },
      responses: {
        200: { description: 'The result', content: { 'application/json': { schema: checkResult } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const { db } = c.get('deps');
    const { email, userHash } = c.req.valid('json');
    const [user] = await db
      .select()
      .from(obUsers)
      .where(
        and(
          eq(obUsers.agentId, agentId),
          sql`lower(${obUsers.email}) = lower(${email})`,
          isNull(obUsers.deletedAt),
        ),
      )
      .limit(1);
    let hashMatches: boolean | null = null;
    if (userHash !== undefined) {
      const holder = user ? await resolveUserHash(db, userHash) : undefined;
      hashMatches = holder?.userId === user?.id && holder !== undefined;
    }
    return c.json(
      {
        registered: user !== undefined,
        userId: user?.id ?? null,
        kycStatus: user?.kycStatus ?? null,
        createdAt: user?.createdAt.toISOString() ?? null,
        hashMatches,
      },
      200,
    );
  },
});

const deleteUser = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'delete',
      path: '/agent/user',
      operationId: 'agentUserDelete',
      tags: ['Agent users'],
      summary: 'Mark a user as deleted',
      description:
        'Marks the user of `x-user-hash` deleted and revokes every hash of the user (they answer 401 from now on; ' +
        'user tokens too). The user’s consents are then ended at their banks in the background (TERMINATED). ' +
        'The user must be one the agent of `x-agent-hash` enrolled, else 404. The e-mail may be enrolled again ' +
        'afterwards.',
      security: security(['agentHash', 'userHash']),
      responses: { 204: { description: 'Deleted' }, ...errorResponses },
    }),
  handler: () => async (c) => {
    const { userId, agentId } = await requireAgentAndUser(c);
    const { temporal, config } = c.get('deps');
    // The workflow marks the user deleted (answered here), then ends its consents at their banks.
    await temporal.workflow.executeUpdateWithStart(userDeletedUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation(userDeletion, {
        workflowId: userDeletionWorkflowId(userId),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{ userId }],
        typedSearchAttributes: openBankingSearchAttributes({ agentId, userId }),
        staticSummary: `Delete user ${userId} and end its consents`,
      }),
    });
    return c.body(null, 204);
  },
});

export const agentUserOperations = [listUsers, checkUser, deleteUser];
