import type { Context, MiddlewareHandler } from 'hono';

/**
 * Input no operation of the platform accepts, refused once for every request before any operation
 * sees it (api/app.ts): text PostgreSQL refuses, which would otherwise end as a 500 deep in a query or
 * jam a process whose read-model write retries it (issue 20): a NUL byte (refused in text, and its
 * escape `\u0000` in jsonb) and ill-formed Unicode, i.e. a lone UTF-16 surrogate (a JSON escape such as
 * `\ud800` without its pair parses to one; jsonb refuses it), anywhere: path segments, query and form
 * names and values, multipart fields, JSON strings and keys. Also percent-encoding that does not decode
 * to UTF-8 in the path, the query or a form body, and a multipart body that does not parse. Each
 * service answers the refusal in its own error shape (ServiceApi.answerMalformed); the JSON services
 * answer `400 malformed_request`.
 */
export interface MalformedInput {
  /** Where: `path`, a query or form parameter's name, a JSON pointer-ish path, or `(body)`. */
  field: string;
  message: string;
}

export type MalformedAnswer = (c: Context, problem: MalformedInput) => Response | Promise<Response>;

const NUL = '\u0000';
/** A UTF-16 surrogate without its pair (with the `u` flag a pair is one code point, not `Cs`). */
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with a decoded text PostgreSQL would refuse, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes(NUL)) return 'contains a NUL byte';
  if (LONE_SURROGATE.test(text)) return 'is not well-formed Unicode (a lone UTF-16 surrogate)';
  return undefined;
}
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function decode(text: string, plusIsSpace: boolean): string | undefined {
  try {
    return decodeURIComponent(plusIsSpace ? text.replaceAll('+', ' ') : text);
  } catch {
    return undefined;
  }
}

/** The first problem of `name=value&...` pairs (a query string or a urlencoded form body). */
function pairsProblem(pairs: string, where: string): MalformedInput | undefined {
  for (const pair of pairs.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decode(rawName, true);
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1), true);
    const field = name ?? rawName.slice(0, 64);
    if (name === undefined || value === undefined)
      return { field, message: `the ${where} parameter is not valid percent-encoded UTF-8` };
    const problem = textProblem(name) ?? textProblem(value);
    if (problem) return { field: sanitized(field), message: `the ${where} parameter ${problem}` };
  }
  return undefined;
}

/** The first problem of a request URL: each path segment and query pair must decode, without NUL. */
export function urlProblem(url: string): MalformedInput | undefined {
  const { pathname, search } = new URL(url);
  for (const segment of pathname.split('/')) {
    const decoded = decode(segment, false);
    if (decoded === undefined)
      return { field: 'path', message: 'the path is not valid percent-encoded UTF-8' };
    const problem = textProblem(decoded);
    if (problem) return { field: 'path', message: `the path ${problem}` };
  }
  return pairsProblem(search.slice(1), 'query');
}

/** A field name fit to be named in an answer: without the characters it was refused for. */
const sanitized = (field: string) => field.replaceAll(NUL, '').replace(/\p{Cs}/gu, '\ufffd');

/** The first string (or key) of a parsed JSON value PostgreSQL would refuse, by its dotted path. */
function jsonProblem(value: unknown, path: string): MalformedInput | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { field: path || '(body)', message: `the value ${problem}` } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${sanitized(key)}` : sanitized(key);
    const problem = textProblem(key);
    if (problem) return { field: at, message: `the name ${problem}` };
    const found = jsonProblem(item, at);
    if (found) return found;
  }
  return undefined;
}

async function bodyProblem(c: Context): Promise<MalformedInput | undefined> {
  if (!BODY_METHODS.has(c.req.method) || !c.req.raw.body) return undefined;
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  const isJson = /^application\/([\w.+-]*\+)?json\b/.test(type);
  const isForm = type.startsWith('application/x-www-form-urlencoded');
  const isMultipart = type.startsWith('multipart/form-data');
  if (!isJson && !isForm && !isMultipart) return undefined;
  // Read once through Hono's body cache: the operation reads the same bytes afterwards.
  const bytes = await c.req.arrayBuffer();
  if (isMultipart) {
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { 'content-type': type } }).formData();
    } catch {
      return { field: '(body)', message: 'the body is not valid multipart/form-data' };
    }
    for (const [name, value] of form) {
      const problem = textProblem(name) ?? (typeof value === 'string' ? textProblem(value) : undefined);
      if (problem) return { field: sanitized(name), message: `the form field ${problem}` };
    }
    return undefined;
  }
  const text = new TextDecoder().decode(bytes);
  if (isForm) return pairsProblem(text, 'form');
  // A NUL in JSON is either a raw byte (invalid JSON, refused by the operation's validation) or the
  // escape \u0000; a lone surrogate can only come from an escape \uD800-\uDFFF (invalid UTF-8 bytes
  // decode to U+FFFD): only a body with such an escape is parsed here.
  if (!/\\u(0000|d[89a-f])/i.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return jsonProblem(parsed, '');
}

/**
 * Middleware refusing malformed input; `answer` renders the refusal in the caller's error shape.
 * Bodies `streamed(c)` names (file uploads) are not read here: their operation streams them and checks
 * its own fields.
 */
export function inputGuard(
  answer: MalformedAnswer,
  streamed: (c: Context) => boolean = () => false,
): MiddlewareHandler {
  return async (c, next) => {
    const problem = urlProblem(c.req.url) ?? (streamed(c) ? undefined : await bodyProblem(c));
    if (problem) return answer(c, problem);
    await next();
  };
}
