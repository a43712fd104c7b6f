import { afterAll, describe, expect, it } from 'vitest';
import { type RawAnswer, type RawRequest, rawRequest, showsInternals } from '../support/raw-http.ts';
import {
  basePacket,
  credentials,
  documents,
  type OpenApiDocument,
  type OperationObject,
  packetParams,
  platform,
  type Schema,
  SERVICES,
  setUpFuzzPlatform,
  text,
} from './fuzz-support.ts';

/**
 * The fuzz suite (issue 13, item 4): every operation of every service's OpenAPI document, called with
 * valid credentials, receives a bounded, seeded set of malformed requests (wrong types, missing and
 * extra fields, NUL bytes, lone UTF-16 surrogates (issue 20), huge strings, bad percent-encoding,
 * malformed JSON/form/multipart bodies, odd and repeated headers, bad path parameters). Lending's
 * operations act on a real customer and a real loan of its, so a value that reaches a loan's workflow
 * and its read model is tried there too. No answer may be a 5xx or show internals (stack
 * frames, file paths), and every refusal is in the platform's error shape (JSON `error`, one-touch
 * `status: "ERR"`, collect `ERR=` text, or an HTML error page). FUZZ_SEED replays another selection.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 13);
/** Requests per operation at most (the baseline request included). */
const PER_OPERATION = Number(process.env.FUZZ_PER_OPERATION ?? 40);
const CONCURRENCY = 6;

setUpFuzzPlatform();

/** mulberry32: a small seeded generator, so a run can be replayed exactly. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    pick: <T>(items: readonly T[], n: number): T[] => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy.slice(0, n);
    },
  };
}

/** Values for the URL (query and path), percent-encoded or deliberately not. */
const BAD_URL_VALUES = [
  '%00',
  'a%00b',
  '%E0%A4%A',
  '%zz',
  '%',
  '%25E0%25A4%25A', // double-encoded
  '%2525zz',
  '%252e%252e%252f',
  '%C0%AE%C0%AE',
  '%FF%FE%FD',
  '%ED%A0%80', // a lone surrogate in UTF-8
  'A'.repeat(4000),
  '%F0%9F%98%80'.repeat(40),
  '-1',
  '1e309',
  '99999999999999999999999',
  '0x1f',
  'NaN',
  '[]',
  '%7B%7D',
  '..%2F..%2Fetc%2Fpasswd',
  '%0D%0AX-Injected:%201',
  "'%20OR%201=1--",
  '\u00e9', // a raw byte above 0x7f in the target
];

/** Header values sent as latin1 bytes. */
const BAD_HEADER_VALUES = ['', 'a\u0000b', 'x'.repeat(6000), '\u00ff\u00fe', '%00', 'a,b', ' padded '];

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Bodies that no operation should answer with a 5xx, whatever it expects. */
const BAD_BODIES: { label: string; headers: [string, string][]; body: string | Buffer }[] = [
  { label: 'truncated JSON', headers: [['content-type', JSON_TYPE]], body: '{"a":' },
  { label: 'JSON array', headers: [['content-type', JSON_TYPE]], body: '[]' },
  { label: 'JSON null', headers: [['content-type', JSON_TYPE]], body: 'null' },
  { label: 'JSON number', headers: [['content-type', JSON_TYPE]], body: '1e999' },
  { label: 'JSON string', headers: [['content-type', JSON_TYPE]], body: '"\\u0000"' },
  { label: 'lone surrogate JSON string', headers: [['content-type', JSON_TYPE]], body: '"x\\ud800y"' },
  { label: 'lone surrogate JSON key', headers: [['content-type', JSON_TYPE]], body: '{"\\udc00":1}' },
  { label: 'NUL escape JSON key', headers: [['content-type', JSON_TYPE]], body: '{"a\\u0000":1}' },
  { label: 'empty JSON', headers: [['content-type', JSON_TYPE]], body: '' },
  {
    label: 'deep JSON',
    headers: [['content-type', JSON_TYPE]],
    body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  },
  {
    label: 'invalid UTF-8 JSON',
    headers: [['content-type', JSON_TYPE]],
    body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d]),
  },
  { label: 'JSON, bogus charset', headers: [['content-type', `${JSON_TYPE}; charset=bogus`]], body: '{}' },
  { label: 'JSON, utf-16 charset', headers: [['content-type', `${JSON_TYPE}; charset=utf-16`]], body: '{}' },
  {
    label: 'proto JSON',
    headers: [['content-type', JSON_TYPE]],
    body: '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}',
  },
  {
    label: 'two content-types',
    headers: [
      ['content-type', JSON_TYPE],
      ['content-type', FORM_TYPE],
    ],
    body: '{}',
  },
  { label: 'no content-type', headers: [], body: '{"a":1}' },
  { label: 'text body', headers: [['content-type', 'text/plain']], body: 'hello' },
  {
    label: 'bad form',
    headers: [['content-type', FORM_TYPE]],
    body: 'ENCODED=%zz&CHECKSUM=%00&%E0%A4%A=1&=&&',
  },
  {
    label: 'NUL form',
    headers: [['content-type', FORM_TYPE]],
    body: 'PAGE=credit%00paydirect&ENCODED=a%00b&URL_OK=%00&TOKEN=%00',
  },
  {
    label: 'lone surrogate form',
    headers: [['content-type', FORM_TYPE]],
    body: 'ENCODED=%ED%A0%80&A=%ED%B0%80',
  },
  {
    label: 'proto form',
    headers: [['content-type', FORM_TYPE]],
    body: '__proto__=1&constructor=2&hasOwnProperty=3&toString=4',
  },
  {
    label: 'multipart without boundary',
    headers: [['content-type', 'multipart/form-data']],
    body: 'garbage',
  },
  {
    label: 'malformed multipart',
    headers: [['content-type', 'multipart/form-data; boundary=xyz']],
    body: '--xyz\r\nContent-Disposition: form-data; name="ENCODED"\r\n\r\nabc',
  },
  {
    label: 'garbage multipart',
    headers: [['content-type', 'multipart/form-data; boundary=xyz']],
    body: '\u0000\u0001garbage',
  },
  {
    label: 'NUL multipart',
    headers: [['content-type', 'multipart/form-data; boundary=xyz']],
    body: '--xyz\r\nContent-Disposition: form-data; name="ENCODED"\r\n\r\na\u0000b\r\n--xyz--\r\n',
  },
  {
    label: 'oversize JSON',
    headers: [['content-type', JSON_TYPE]],
    body: `{"a":"${'x'.repeat(1024 * 1024 + 10)}"}`,
  },
];

/** Odd headers every operation receives some of. */
const ODD_HEADERS: { label: string; headers: [string, string][] }[] = [
  { label: 'very long header', headers: [['x-fuzz', 'y'.repeat(8_000)]] },
  { label: 'oversize headers', headers: [['x-fuzz', 'y'.repeat(20_000)]] },
  { label: 'NUL in a header', headers: [['x-fuzz', 'a\u0000b']] },
  { label: 'control byte in a header', headers: [['x-fuzz', 'a\u0001b']] },
  { label: 'latin1 header', headers: [['x-fuzz', '\u00ff\u00e9']] },
  { label: 'odd request id', headers: [['x-request-id', `\u00ff${'r'.repeat(3_000)}`]] },
  {
    label: 'repeated credentials',
    headers: [
      ['x-agent-hash', 'agent_x'],
      ['x-agent-hash', 'agent_y'],
      ['x-user-hash', 'user_\u00ff'],
      ['authorization', 'Bearer \u00ff.\u00fe.x'],
    ],
  },
  { label: 'bad authorization', headers: [['authorization', 'Bearer a.b.c']] },
  { label: 'bad accept', headers: [['accept', '*/*;q=bogus, \u00ff']] },
  { label: 'bad content-length', headers: [['content-length', '-1']] },
];

let requestsSent = 0;
afterAll(() => {
  if (requestsSent > 0) console.log(`fuzz: ${requestsSent} requests sent in all (seed ${SEED})`);
});

function resolve(document: OpenApiDocument, schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref)
    return resolve(document, document.components?.schemas?.[schema.$ref.split('/').pop() ?? '']);
  if (schema.allOf?.[0]) return resolve(document, schema.allOf[0]);
  return schema;
}

/** A plausible value for a schema: its example, default or first enum value, else one of its type. */
function sample(document: OpenApiDocument, raw: Schema | undefined, depth = 0): unknown {
  const schema = resolve(document, raw);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (variant) return sample(document, variant, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 3 ? [] : [sample(document, schema.items, depth + 1)];
    case 'object': {
      if (depth > 3) return {};
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        value[name] = sample(document, property, depth + 1);
      return value;
    }
    default:
      if (schema.format === 'date') return '2030-01-01';
      if (schema.format === 'date-time') return '2030-01-01T10:00:00Z';
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'uri' || schema.format === 'url') return 'http://127.0.0.1:9/hook';
      if (schema.format === 'email') return 'fuzz@example.com';
      return 'x';
  }
}

/** Packets that are signed correctly but wrong inside. */
const BAD_PACKETS: { label: string; lines: () => string[] | Buffer }[] = [
  {
    label: 'NUL in INVOICE',
    lines: () => basePacket().map((l) => (l.startsWith('INVOICE=') ? 'INVOICE=1\u00002' : l)),
  },
  { label: 'NUL in DESCR', lines: () => [...basePacket(), 'DESCR=a\u0000b'] },
  { label: 'huge DESCR', lines: () => [...basePacket().slice(0, 4), `DESCR=${'d'.repeat(100_000)}`] },
  {
    label: 'bad AMOUNT',
    lines: () => basePacket().map((l) => (l.startsWith('AMOUNT=') ? 'AMOUNT=1e400' : l)),
  },
  {
    label: 'bad EXP_TIME',
    lines: () => basePacket().map((l) => (l.startsWith('EXP_TIME=') ? 'EXP_TIME=99.99.9999 99:99' : l)),
  },
  { label: 'bad ENCODING', lines: () => [...basePacket(), 'ENCODING=ebcdic'] },
  {
    label: 'invalid UTF-8 packet',
    lines: () =>
      Buffer.concat([Buffer.from(basePacket().join('\n')), Buffer.from([0x0a, 0x44, 0x3d, 0xff, 0xfe])]),
  },
  { label: 'no MIN', lines: () => basePacket().slice(1) },
  { label: 'lines without =', lines: () => [...basePacket(), '====', 'X', '\u0000'] },
  { label: 'huge IDN', lines: () => [...basePacket(), `IDN=${'9'.repeat(500)}`, 'PHASE=FINALIZE'] },
];

interface FuzzCase {
  operation: string;
  label: string;
  request: RawRequest;
}

/** The credentials of an operation: the first alternative of its `security` that this suite holds. */
function credentialHeaders(document: OpenApiDocument, op: OperationObject): [string, string][] {
  const byScheme: Record<string, [string, string]> = {
    lenderApiKey: ['lender_ApiKey', credentials.lendingKey],
    lenderUserAuthToken: ['lender_UserAuthToken', credentials.lendingToken],
    agentHash: ['x-agent-hash', credentials.agentHash],
    userHash: ['x-user-hash', credentials.userHash],
    publicHash: ['x-public-hash', credentials.publicHash],
    adminHash: ['x-admin-hash', credentials.adminHash],
    userToken: ['authorization', `Bearer ${credentials.userToken}`],
  };
  const alternatives = op.security ?? document.security ?? [];
  const chosen = alternatives.find((alternative) => Object.keys(alternative).length > 0) ?? {};
  return Object.keys(chosen).flatMap((scheme) => (byScheme[scheme] ? [byScheme[scheme]] : []));
}

function casesOf(
  service: string,
  document: OpenApiDocument,
  method: string,
  path: string,
  op: OperationObject,
) {
  const random = seeded(SEED + [...`${method} ${path}`].reduce((sum, ch) => sum * 31 + ch.charCodeAt(0), 0));
  const operation = `${method.toUpperCase()} /${service}${path}`;
  const parameters = op.parameters ?? [];
  const baseQuery: Record<string, string> = {};
  const basePath: Record<string, string> = {};
  const baseHeaders: [string, string][] = credentialHeaders(document, op);
  for (const parameter of parameters) {
    const value = text(parameter.example ?? sample(document, parameter.schema));
    if (parameter.in === 'query') baseQuery[parameter.name] = encodeURIComponent(value);
    else if (parameter.in === 'path') basePath[parameter.name] = encodeURIComponent(value);
    else if (parameter.in === 'header' && parameter.required) baseHeaders.push([parameter.name, value]);
  }
  if (service === 'messaging') baseQuery.at = credentials.messagingToken;
  if (service === 'lending') {
    if ('loanId' in basePath) basePath.loanId = credentials.lendingLoanId;
    if ('customerId' in basePath) basePath.customerId = credentials.lendingCustomerId;
    if (path.includes('/Investor/'))
      for (const header of baseHeaders)
        if (header[0] === 'lender_UserAuthToken') header[1] = credentials.lendingInvestorToken;
  }
  const signed = 'ENCODED' in baseQuery;
  if (signed) Object.assign(baseQuery, packetParams(basePacket()));
  if ('APPID' in baseQuery) baseQuery.APPID = credentials.oneTouchAppId;
  const jsonSchema = op.requestBody?.content?.[JSON_TYPE]?.schema;
  const formSchema = op.requestBody?.content?.[FORM_TYPE]?.schema;
  const baseBody = jsonSchema ? (sample(document, jsonSchema) as Record<string, unknown>) : undefined;

  const build = (
    label: string,
    changes: {
      query?: Record<string, string | undefined>;
      path?: Record<string, string>;
      headers?: [string, string][];
      replaceHeaders?: [string, string][];
      body?: { headers: [string, string][]; body: string | Buffer };
      extraQuery?: string;
    } = {},
  ): FuzzCase => {
    const query = { ...baseQuery, ...changes.query };
    const pathParams = { ...basePath, ...changes.path };
    const target =
      `/${service}${path.replace(/\{([^}]+)\}/g, (_, name: string) => pathParams[name] ?? 'x')}` +
      `?${Object.entries(query)
        .filter((entry): entry is [string, string] => entry[1] !== undefined)
        .map(([name, value]) => `${name}=${value}`)
        .join('&')}${changes.extraQuery ?? ''}`;
    const body =
      changes.body ??
      (baseBody !== undefined
        ? { headers: [['content-type', JSON_TYPE]] as [string, string][], body: JSON.stringify(baseBody) }
        : formSchema
          ? {
              headers: [['content-type', FORM_TYPE]] as [string, string][],
              body: new URLSearchParams({
                PAGE: 'credit_paydirect',
                ...Object.fromEntries(
                  Object.entries(packetParams(basePacket())).map(([k, v]) => [k, decodeURIComponent(v)]),
                ),
              }).toString(),
            }
          : undefined);
    return {
      operation,
      label,
      request: {
        method: method.toUpperCase(),
        target,
        headers: [
          ...(changes.replaceHeaders ?? baseHeaders),
          ...(body?.headers ?? []),
          ...(changes.headers ?? []),
        ],
        ...(body ? { body: body.body } : {}),
      },
    };
  };

  const cases: FuzzCase[] = [];
  // Parameters: bad values, missing, repeated.
  for (const parameter of parameters) {
    const where = parameter.in;
    if (where === 'query' || where === 'path') {
      for (const value of random.pick(BAD_URL_VALUES, 6)) {
        cases.push(
          build(`${where} ${parameter.name}=${value.slice(0, 30)}`, {
            [where]: { [parameter.name]: value },
          }),
        );
      }
      if (where === 'query') {
        cases.push(build(`missing ${parameter.name}`, { query: { [parameter.name]: undefined } }));
        cases.push(
          build(`repeated ${parameter.name}`, { extraQuery: `&${parameter.name}=%00&${parameter.name}=` }),
        );
      }
    } else if (where === 'header') {
      for (const value of random.pick(BAD_HEADER_VALUES, 2))
        cases.push(
          build(`header ${parameter.name}=${value.slice(0, 20)}`, { headers: [[parameter.name, value]] }),
        );
    }
  }
  // The credentials themselves, malformed.
  if (service === 'messaging') {
    for (const value of random.pick(BAD_URL_VALUES, 3))
      cases.push(build(`at=${value.slice(0, 30)}`, { query: { at: value } }));
  }
  for (const [name] of credentialHeaders(document, op)) {
    for (const value of random.pick(BAD_HEADER_VALUES, 2)) {
      cases.push(
        build(`credential ${name}=${value.slice(0, 20)}`, {
          replaceHeaders: [...baseHeaders.filter(([n]) => n !== name), [name, value]],
        }),
      );
    }
  }
  // Signed packets, wrong inside.
  if (signed) {
    for (const packet of random.pick(BAD_PACKETS, 6))
      cases.push(build(packet.label, { query: packetParams(packet.lines()) }));
  }
  // JSON bodies: missing, extra, NUL, huge and wrong-typed fields.
  if (baseBody && typeof baseBody === 'object') {
    const json = (value: unknown) => ({
      headers: [['content-type', JSON_TYPE]] as [string, string][],
      body: JSON.stringify(value),
    });
    cases.push(build('empty object', { body: json({}) }));
    cases.push(build('lone surrogate in every string', { body: json(everyString(baseBody, 'a\ud800b')) }));
    cases.push(build('extra fields', { body: json({ ...baseBody, unexpected: 'x', __proto__x: { a: 1 } }) }));
    const fields = Object.keys(baseBody);
    for (const field of random.pick(fields, 4)) {
      const { [field]: _, ...without } = baseBody;
      const variants: [string, unknown][] = [
        [`missing ${field}`, without],
        [`NUL in ${field}`, { ...baseBody, [field]: `a\u0000${text(baseBody[field])}` }],
        [`huge ${field}`, { ...baseBody, [field]: 'h'.repeat(200_000) }],
        [`${field} as number`, { ...baseBody, [field]: 1e308 }],
        [`${field} as object`, { ...baseBody, [field]: { $gt: '' } }],
        [`${field} as array`, { ...baseBody, [field]: [null] }],
        [`${field} null`, { ...baseBody, [field]: null }],
        [`lone surrogate in ${field}`, { ...baseBody, [field]: '\ud800x' }],
        [
          `lone surrogates in ${field}'s strings`,
          { ...baseBody, [field]: everyString(baseBody[field], 'x\udc00') },
        ],
        [`NUL in ${field}'s strings`, { ...baseBody, [field]: everyString(baseBody[field], 'x\u0000') }],
      ];
      for (const [label, body] of random.pick(variants, 3)) cases.push(build(label, { body: json(body) }));
    }
  }
  // Bodies of every kind, on operations that take one (and a few on those that do not).
  const takesBody = method !== 'get';
  for (const bad of random.pick(BAD_BODIES, takesBody ? 12 : 3)) {
    cases.push(build(`body: ${bad.label}`, { body: { headers: bad.headers, body: bad.body } }));
  }
  for (const odd of random.pick(ODD_HEADERS, 4))
    cases.push(build(`headers: ${odd.label}`, { headers: odd.headers }));

  return [build('baseline'), ...random.pick(cases, PER_OPERATION - 1)];
}

/** `value` with `suffix` added to each string inside it (keys kept). */
function everyString(value: unknown, suffix: string): unknown {
  if (typeof value === 'string') return `${value}${suffix}`;
  if (Array.isArray(value)) return value.map((item) => everyString(item, suffix));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, everyString(item, suffix)]));
}

/** Whether a refusal is in one of the platform's error shapes. */
function inErrorShape(answer: RawAnswer): boolean {
  const type = answer.headers['content-type'] ?? '';
  if (type.includes('json')) {
    try {
      const body = JSON.parse(answer.body) as { error?: { code?: unknown }; status?: unknown; err?: unknown };
      return typeof body.error?.code === 'string' || (body.status === 'ERR' && typeof body.err === 'string');
    } catch {
      return false;
    }
  }
  if (type.startsWith('text/plain')) return /^ERR=/m.test(answer.body);
  return type.startsWith('text/html');
}

async function runAll(cases: FuzzCase[]) {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const fuzzCase = cases[next++] as FuzzCase;
      let answer: RawAnswer;
      try {
        answer = await rawRequest(platform.apiUrl, fuzzCase.request);
      } catch (error) {
        failures.push(`${fuzzCase.operation} [${fuzzCase.label}]: ${(error as Error).message}`);
        continue;
      }
      const what = `${fuzzCase.operation} [${fuzzCase.label}] → ${answer.status}`;
      if (!(answer.status >= 100 && answer.status < 500))
        failures.push(`${what}: ${answer.body.slice(0, 200)}`);
      else if (showsInternals(answer.body))
        failures.push(`${what} shows internals: ${answer.body.slice(0, 300)}`);
      else if (answer.status >= 400 && !inErrorShape(answer))
        failures.push(
          `${what} not in an error shape (${answer.headers['content-type']}): ${answer.body.slice(0, 120)}`,
        );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return failures;
}

describe('fuzz: every documented operation, malformed requests', () => {
  for (const service of SERVICES) {
    it(`${service}: no 5xx, no internals, every refusal in the error shape`, async () => {
      const document = documents[service] as OpenApiDocument;
      const cases = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([method, op]) => casesOf(service, document, method, path, op)),
      );
      const started = performance.now();
      const failures = await runAll(cases);
      requestsSent += cases.length;
      const operations = new Set(cases.map((c) => c.operation)).size;
      console.log(
        `fuzz ${service}: ${cases.length} requests to ${operations} operations (seed ${SEED}) in ` +
          `${Math.round(performance.now() - started)} ms, ${failures.length} failures`,
      );
      for (const failure of failures.slice(0, 40)) console.log(JSON.stringify(failure));
      expect(failures.slice(0, 40)).toEqual([]);
    }, 300_000);
  }
});
