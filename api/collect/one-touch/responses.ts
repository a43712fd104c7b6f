import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import type { UseCaseDeps } from '../../../application/shared/deps.ts';
import { OneTouchError, oneTouchErrorCodes } from '../../../domain/collect/one-touch-errors.ts';
import type { AppEnv } from '../../shared/context.ts';

/**
 * One-touch answers in ePay.bg's one-touch shape (domain/collect/one-touch-errors.ts):
 *   success  { "status": "OK", ...data }
 *   error    { "status": "ERR", "err": "INVALID_TOKEN", "errm": "message", "field": "TOKEN" }
 */

const ONE_TOUCH_NOT_CONNECTED =
  'one-touch payments are not available: PLATFORM_MODE=production and one-touch pays with the sandbox card (it is not connected to the card acquirer)';

export const oneTouchErrorSchema = z
  .object({
    status: z.literal('ERR'),
    err: z.enum(oneTouchErrorCodes).openapi({ description: 'Stable error code', example: 'INVALID_TOKEN' }),
    errm: z.string().openapi({ description: 'What is wrong, for people', example: 'TOKEN is not valid' }),
    field: z.string().optional().openapi({ description: 'The offending parameter', example: 'TOKEN' }),
  })
  .openapi('OneTouchError');

const errorContent = { 'application/json': { schema: oneTouchErrorSchema } };
/** OpenAPI entries of the documented one-touch errors. */
export const oneTouchErrorResponses = {
  400: {
    description: 'A parameter is missing, malformed or given twice (`field` names it)',
    content: errorContent,
  },
  401: {
    description: 'Unknown APPID, or a TOKEN, CODE or CHECKSUM that is not valid',
    content: errorContent,
  },
} as const;

/** The `defaultHook` twin for one-touch routes: zod failures in the one-touch error shape. */
export function oneTouchValidationHook(
  result: { success: true } | { success: false; error: ZodError },
  c: Context<AppEnv>,
) {
  if (result.success) return undefined;
  const duplicate = duplicateParameter(c);
  if (duplicate) return c.json(duplicate.body(), duplicate.status);
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? '(query)');
  const missing = c.req.query(field) === undefined;
  const error = missing
    ? new OneTouchError(400, 'MISSING_PARAMETER', `${field} is required`, field)
    : OneTouchError.invalid(field, issue?.message ?? 'not valid');
  return c.json(error.body(), error.status);
}

function duplicateParameter(c: Context<AppEnv>): OneTouchError | undefined {
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1) {
      return new OneTouchError(400, 'DUPLICATE_PARAMETER', `${name} is given more than once`, name);
    }
  }
  return undefined;
}

/**
 * Runs a one-touch handler: refuses a parameter given twice (the checksum and the handler must see
 * the same single value), refuses every one-touch operation in production mode (503
 * `ACQUIRER_NOT_CONFIGURED`: one-touch pays with the sandbox card, it is not connected to the card
 * acquirer) and answers a thrown OneTouchError in the one-touch shape.
 */
export async function answerOneTouch<R>(
  c: Context<AppEnv>,
  run: (deps: UseCaseDeps) => Promise<R>,
): Promise<R> {
  try {
    const duplicate = duplicateParameter(c);
    if (duplicate) throw duplicate;
    const deps = c.get('deps');
    // Pairing gives the device the sandbox card and payments are decided by it: never in production.
    if (deps.config.PLATFORM_MODE === 'production') {
      throw new OneTouchError(503, 'ACQUIRER_NOT_CONFIGURED', ONE_TOUCH_NOT_CONNECTED);
    }
    return await run(deps);
  } catch (error) {
    // The route's typed responses list the error statuses; the typed union cannot name each one here.
    if (error instanceof OneTouchError) return c.json(error.body(), error.status) as unknown as R;
    throw error;
  }
}
