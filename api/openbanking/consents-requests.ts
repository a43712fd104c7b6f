import { createRoute, z } from '@hono/zod-openapi';
import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obConsentsRequests } from '../../db/schema/openbanking.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  ADMIN_SECURITY,
  newId,
  requireAdmin,
  requireAgent,
  requireUser,
  resolveUserHash,
  security,
  USER_SECURITY,
} from './identity.ts';

/**
 * Consents requests ("cgate", unversioned paths under /api/cgate): an operator, acting for an agent,
 * asks one of the agent's users to grant a consent for given banks and scopes. The user's interface lists
 * its requests; a request is fulfilled when the user completes a consent that covers it
 * (activities/openbanking/consents-requests.ts, called by the consent flow).
 */

export const CONSENT_SCOPES = ['accounts', 'balances', 'transactions'] as const;

const requestBody = z
  .object({
    userHash: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'The user asked; one the agent enrolled', example: 'user_Zr5c...' }),
    banks: z
      .array(z.string().min(1).max(100))
      .max(20)
      .default([])
      .openapi({ description: 'Bank hashes the user is asked to connect; empty or omitted: any bank' }),
    scopes: z
      .array(z.enum(CONSENT_SCOPES))
      .min(1)
      .default([...CONSENT_SCOPES])
      .openapi({
        description: 'What the consent must cover; all three when omitted',
        example: ['accounts', 'balances'],
      }),
    message: z.string().trim().min(1).max(500).optional().openapi({
      description: 'Shown to the user by the user interface',
      example: 'Please connect your salary account',
    }),
  })
  .openapi('ConsentsRequestDTO');

const consentsRequestSchema = z
  .object({
    id: z.string().openapi({ example: 'cgr_7d3b6a0e...' }),
    userId: z.string(),
    agentId: z.string(),
    banks: z.array(z.string()),
    scopes: z.array(z.enum(CONSENT_SCOPES)),
    message: z.string().nullable(),
    fulfilled: z.boolean(),
    consentId: z.string().nullable().openapi({ description: 'The consent that fulfilled it' }),
    createdAt: z.string(),
    fulfilledAt: z.string().nullable(),
  })
  .openapi('ConsentsRequest');

const listSchema = z.object({ items: z.array(consentsRequestSchema) }).openapi('ConsentsRequestList');

type Row = typeof obConsentsRequests.$inferSelect;
const toRecord = (row: Row): z.infer<typeof consentsRequestSchema> => ({
  id: row.id,
  userId: row.userId,
  agentId: row.agentId,
  banks: row.banks,
  scopes: row.scopes as z.infer<typeof consentsRequestSchema>['scopes'],
  message: row.message,
  fulfilled: row.status === 'fulfilled',
  consentId: row.consentId,
  createdAt: row.createdAt.toISOString(),
  fulfilledAt: row.fulfilledAt?.toISOString() ?? null,
});

const fulfilledQuery = z.object({
  fulfilled: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'true: fulfilled only; false: open only; omitted: all' }),
});

async function listOfUser(db: Database, userId: string, fulfilled: 'true' | 'false' | undefined) {
  const conditions: SQL[] = [eq(obConsentsRequests.userId, userId)];
  if (fulfilled) conditions.push(eq(obConsentsRequests.status, fulfilled === 'true' ? 'fulfilled' : 'open'));
  const rows = await db
    .select()
    .from(obConsentsRequests)
    .where(and(...conditions))
    .orderBy(desc(obConsentsRequests.createdAt), desc(obConsentsRequests.id))
    .limit(200);
  return { items: rows.map(toRecord) };
}

const createRequest = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/api/cgate/consents-request',
      operationId: 'cgateCreateConsentsRequest',
      tags: ['Consents requests'],
      summary: 'Ask a user to grant a consent (admin)',
      description:
        'Needs both `x-admin-hash` (the operator) and `x-agent-hash` (the agent acting); the user must be one the agent ' +
        'enrolled, else 404. Open until a consent covering its banks and scopes completes.',
      security: security(['adminHash', 'agentHash']),
      request: { body: jsonBody(requestBody) },
      responses: {
        201: { description: 'Created', content: { 'application/json': { schema: consentsRequestSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    await requireAdmin(c);
    const { agentId } = await requireAgent(c);
    const { db } = c.get('deps');
    const body = c.req.valid('json');
    const user = await resolveUserHash(db, body.userHash);
    if (!user || user.agentId !== agentId) throw ApiError.notFound('User');
    const [row] = await db
      .insert(obConsentsRequests)
      .values({
        id: newId('cgr'),
        agentId,
        userId: user.userId,
        banks: [...new Set(body.banks)],
        scopes: [...new Set(body.scopes)],
        message: body.message ?? null,
        status: 'open',
      })
      .returning();
    return c.json(toRecord(row!), 201);
  },
});

const listForAdmin = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/api/cgate/consents-request/{userHash}',
      operationId: 'cgateConsentsRequestsOfUser',
      tags: ['Consents requests'],
      summary: 'Consents requests of a user (admin)',
      description: 'Newest first (at most 200). An unknown or deleted user hash is 404.',
      security: ADMIN_SECURITY,
      request: {
        params: z.object({
          userHash: z
            .string()
            .min(1)
            .max(200)
            .openapi({ param: { name: 'userHash', in: 'path' } }),
        }),
        query: fulfilledQuery,
      },
      responses: {
        200: { description: 'The requests', content: { 'application/json': { schema: listSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    await requireAdmin(c);
    const { db } = c.get('deps');
    const user = await resolveUserHash(db, c.req.valid('param').userHash);
    if (!user) throw ApiError.notFound('User');
    return c.json(await listOfUser(db, user.userId, c.req.valid('query').fulfilled), 200);
  },
});

const listForUser = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/api/cgate/ui/consents-request',
      operationId: 'cgateConsentsRequestsForUi',
      tags: ['Consents requests'],
      summary: 'The calling user’s consents requests (user interface)',
      description: 'Newest first (at most 200); `fulfilled=false` for those still to act on.',
      security: USER_SECURITY,
      request: { query: fulfilledQuery },
      responses: {
        200: { description: 'The requests', content: { 'application/json': { schema: listSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { userId } = await requireUser(c);
    return c.json(await listOfUser(c.get('deps').db, userId, c.req.valid('query').fulfilled), 200);
  },
});

export const consentsRequestOperations = [createRequest, listForAdmin, listForUser];
