import { z } from 'zod';
import { parseDurationList, parseDurationMs } from '../domain/durations.ts';

/** Field kinds of the configuration schemas (platform/config.ts and each service's platform/<svc>/config.ts). */

/** A text variable with a default, turned into a value by `parse`; a parse error names the variable. */
export const parsedText = <T>(fallback: string, parse: (text: string) => T) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

export const duration = (fallback: string) => parsedText(fallback, parseDurationMs);
export const durationList = (fallback: string) => parsedText(fallback, parseDurationList);

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const optionalUrl = z
  .string()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));
