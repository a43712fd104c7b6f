import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import {
  badField,
  type CollectErrorCode,
  CollectProtocolError,
  collectErrorCodes,
  missingField,
} from '../../domain/collect/errors.ts';
import { IDN_TEXT } from '../../domain/collect/payloads.ts';
import type { AppEnv } from '../shared/context.ts';

/**
 * The ePay-style protocol of the ENCODED/CHECKSUM endpoints as HTTP: reading the parameters, the
 * `KEY=VALUE` text answers and the `ERR=` answer of a protocol error. Authenticating the packet and the
 * obligations' Updates are use cases (application/collect/). One file per operation builds on these.
 */

type CollectContext = Context<AppEnv>;

/**
 * Parameters by upper-cased name: ePay clients send both `ENCODED` and `encoded`. A form body that
 * does not parse, or a value with a NUL byte, is `ERR=BAD_FIELD` (the platform's input guard refuses
 * them first; this keeps the protocol's answer wherever requestParams is called).
 */
export async function requestParams(c: CollectContext): Promise<Record<string, string>> {
  const params: Record<string, string> = {};
  const add = (key: string, value: unknown) => {
    if (typeof value !== 'string') return;
    if (key.includes('\u0000') || value.includes('\u0000'))
      throw badField(key.replaceAll('\u0000', '').toUpperCase(), 'contains a NUL byte');
    if (params[key.toUpperCase()] === undefined) params[key.toUpperCase()] = value;
  };
  if (c.req.method === 'POST') {
    const type = c.req.header('content-type') ?? '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      let form: Record<string, unknown>;
      try {
        form = await c.req.parseBody();
      } catch {
        throw badField('request', 'the body is not a valid form');
      }
      for (const [key, value] of Object.entries(form)) add(key, value);
    }
  }
  for (const [key, value] of Object.entries(c.req.query())) add(key, value);
  return params;
}

/** A `KEY=VALUE` text answer, one line each, in the order given (undefined values left out). */
export function textAnswer(
  c: CollectContext,
  fields: Record<string, string | number | undefined>,
  status: 200 | 201 = 200,
  headers: Record<string, string> = {},
): Response {
  const lines = Object.entries(fields)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${String(value).replace(/[\r\n]+/g, ' ')}`);
  return c.body(`${lines.join('\n')}\n`, status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
}

/** A protocol error as its answer: `ERR=`/`ERRMSG=`/`FIELD=` text with the code's status. */
export function protocolError(c: CollectContext, error: CollectProtocolError): Response {
  return c.body(`${error.toText()}\n`, error.status as 400, { 'content-type': 'text/plain; charset=utf-8' });
}

/** Wraps an operation: protocol errors become `ERR=`/`ERRMSG=`/`FIELD=` text with their status. */
export function protocolHandler<C extends CollectContext>(operation: (c: C) => Promise<Response>) {
  return async (c: C): Promise<Response> => {
    try {
      return await operation(c);
    } catch (error) {
      if (error instanceof CollectProtocolError) return protocolError(c, error);
      c.get('deps').logger.error({ err: error, path: c.req.path }, 'collect operation failed');
      return protocolError(c, new CollectProtocolError('INTERNAL', 'internal error; try again later'));
    }
  };
}

/**
 * The `defaultHook` of the collect app: a request its route's schemas refuse is answered like any
 * protocol error, `ERR=MISSING_FIELD` or `ERR=BAD_FIELD` text naming the field.
 */
export function collectValidationHook(
  result: { success: true } | { success: false; error: ZodError },
  c: CollectContext,
): Response | undefined {
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const field = issue?.path[0] === undefined ? 'request' : String(issue.path[0]);
  const missing = issue?.code === 'invalid_type' && / received undefined$/.test(issue.message);
  return protocolError(c, missing ? missingField(field) : badField(field, issue?.message ?? 'not valid'));
}

// --- OpenAPI pieces shared by the operation files -------------------------------------------------

/**
 * A parameter as the protocol reads it (requestParams): optional, and when given twice its first value
 * counts. Validation of such a parameter never refuses what the protocol accepts, so it documents the
 * parameter without changing how the operation answers; the operation checks it (MISSING_FIELD, ...).
 */
export const protocolParam = () =>
  z.preprocess((value) => (Array.isArray(value) ? value[0] : value), z.string().optional());

const ENCODED_DOC = {
  description: 'Base64 of the packet: `KEY=VALUE` lines (see the payload model). `encoded` is accepted too.',
  example: 'TUlOPUQxMjM0NTY3ODkKSU5WT0lDRT0xMDAxCkFNT1VOVD0yMi44MApFWFBfVElNRT0wMS4wOC4yMDI3',
};
const CHECKSUM_DOC = {
  description:
    'Lowercase hex HMAC-SHA1 of the ENCODED text keyed with the merchant secret. `checksum` is accepted too.',
  example: '5c0ec6d1a8a7f4b2b6b5d0c9f6a1e5d4c3b2a190',
};

export const encodedQuerySchema = z.object({
  ENCODED: protocolParam().openapi(ENCODED_DOC),
  CHECKSUM: protocolParam().openapi(CHECKSUM_DOC),
});

/**
 * ENCODED and CHECKSUM as form fields, documentation only: a plain OpenAPI schema, so the route neither
 * validates the body nor refuses another content type (requestParams reads the form, else the query).
 */
export const encodedFormDocumentation = {
  type: 'object' as const,
  properties: {
    ENCODED: { type: 'string' as const, ...ENCODED_DOC },
    CHECKSUM: { type: 'string' as const, ...CHECKSUM_DOC },
  },
};

const textSchema = z.string().openapi({ example: 'IDN=1234567890\n' });

/** Responses of a text endpoint: the success lines and the `ERR=` errors, with the codes they use. */
export function textResponses(success: string, example: string, errors: readonly CollectErrorCode[]) {
  const responses: Record<
    string,
    { description: string; content: Record<string, { schema: typeof textSchema }> }
  > = {
    200: { description: success, content: { 'text/plain': { schema: textSchema.openapi({ example }) } } },
  };
  for (const code of errors) {
    const { status, meaning } = collectErrorCodes[code];
    const entry = responses[status];
    const line = `\`ERR=${code}\`: ${meaning}`;
    if (entry) entry.description += `; ${line}`;
    else {
      responses[status] = {
        description: line,
        content: { 'text/plain': { schema: textSchema.openapi({ example: `ERR=${code}\nERRMSG=...\n` }) } },
      };
    }
  }
  return responses;
}

/** Errors every authenticated ENCODED endpoint can answer. */
export const authenticationErrors: readonly CollectErrorCode[] = [
  'MISSING_FIELD',
  'BAD_FIELD',
  'BAD_ENCODED',
  'UNKNOWN_MERCHANT',
  'BAD_CHECKSUM',
];

// --- Sandbox demo endpoints (they play the office) ------------------------------------------------

/** The demo endpoints do not exist with PLATFORM_MODE=production (404). */
export function demoOnly(c: CollectContext): void {
  if (c.get('deps').config.PLATFORM_MODE === 'production') {
    throw new CollectProtocolError('NOT_FOUND', 'demo endpoints are disabled in production mode');
  }
}

/** A 10-digit IDN parameter (MISSING_FIELD, BAD_FIELD otherwise). */
export function requireIdn(value: string | undefined, field: string): string {
  if (!value) throw missingField(field);
  if (!IDN_TEXT.test(value)) throw badField(field, 'must be 10 digits');
  return value;
}
