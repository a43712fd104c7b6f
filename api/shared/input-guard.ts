import type { Context, MiddlewareHandler } from 'hono';

/**
 * Input no operation of the platform accepts, refused once for every request before any operation
 * sees it (api/app.ts): a NUL byte anywhere (PostgreSQL refuses it in text, so it would otherwise end
 * as a 500 deep in a query), percent-encoding that does not decode to UTF-8 in the path, the query or
 * a form body, and a multipart body that does not parse. Each service answers the refusal in its own
 * error shape (ServiceApi.answerMalformed); the JSON services answer `400 malformed_request`.
 */
export interface MalformedInput {
  /** Where: `path`, a query or form parameter's name, a JSON pointer-ish path, or `(body)`. */
  field: string;
  message: string;
}

export type MalformedAnswer = (c: Context, problem: MalformedInput) => Response | Promise<Response>;

const NUL = '\u0000';
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
    if (name.includes(NUL) || value.includes(NUL))
      return { field, message: `the ${where} parameter contains a NUL byte` };
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
    if (decoded.includes(NUL)) return { field: 'path', message: 'the path contains a NUL byte' };
  }
  return pairsProblem(search.slice(1), 'query');
}

/** The dotted path of the first string (or key) holding a NUL in a parsed JSON value. */
function nulIn(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path || '(body)' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes(NUL)) return at;
    const found = nulIn(item, at);
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
      if (name.includes(NUL) || (typeof value === 'string' && value.includes(NUL)))
        return { field: name.replaceAll(NUL, ''), message: 'the form field contains a NUL byte' };
    }
    return undefined;
  }
  const text = new TextDecoder().decode(bytes);
  if (isForm) return pairsProblem(text, 'form');
  // A NUL in JSON is either a raw byte (invalid JSON, refused by the operation's validation) or the
  // escape \u0000; only a body that has one is parsed here.
  if (!/\\u0000/i.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const field = nulIn(parsed, '');
  return field ? { field, message: 'the value contains a NUL byte' } : undefined;
}

/** Middleware refusing malformed input; `answer` renders the refusal in the caller's error shape. */
export function inputGuard(answer: MalformedAnswer): MiddlewareHandler {
  return async (c, next) => {
    const problem = urlProblem(c.req.url) ?? (await bodyProblem(c));
    if (problem) return answer(c, problem);
    await next();
  };
}
