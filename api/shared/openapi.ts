import type { z } from '@hono/zod-openapi';

/** A required JSON request body for `createRoute`, validated against `schema`. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});
