import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { parseDurationMs } from '../../domain/durations.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoint: remove lending file content without a row (the HTTP twin of `npm run admin --
 * lending:files-sweep`, so the CLI can go through a running platform: decision 0080).
 */
const durationSchema = z
  .string()
  .max(20)
  .refine((text) => {
    try {
      return Number.isFinite(parseDurationMs(text));
    } catch {
      return false;
    }
  }, 'a duration such as 30m, 1h or 2d');

const sweepRoute = createRoute({
  method: 'post',
  path: '/lending/files/sweep',
  tags: ['Admin'],
  summary: 'Remove orphan file content',
  description:
    'Removes stored content that no file row names (a crash between storing and recording an upload), older ' +
    'than `olderThan` (default 1h: uploads in flight are younger). Answers the storage keys removed.',
  request: {
    body: jsonBody(z.object({ olderThan: durationSchema.default('1h').openapi({ example: '1h' }) })),
  },
  responses: {
    200: {
      description: 'What was removed',
      content: { 'application/json': { schema: z.object({ removed: z.array(z.string()) }) } },
    },
    ...errorResponses,
  },
});

export function registerLendingFileAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(sweepRoute, async (c) => {
    const olderThanMs = parseDurationMs(c.req.valid('json').olderThan);
    return c.json({ removed: await lending.sweepOrphanFiles(c.get('deps'), { olderThanMs }) }, 200);
  });
}
