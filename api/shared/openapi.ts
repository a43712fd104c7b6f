import { z } from '@hono/zod-openapi';

/** A required JSON request body for `createRoute`, validated against `schema`. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** A documented HTML answer (a hosted page) for `createRoute`'s responses. */
export const htmlAnswer = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string() } },
});
