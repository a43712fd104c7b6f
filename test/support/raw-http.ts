import { connect } from 'node:net';

/**
 * HTTP/1.1 over a plain socket, for requests that fetch refuses to send: control bytes and NUL in the
 * target or a header, the same header twice, invalid UTF-8, a body that does not match its type.
 * One connection per request (`connection: close`); the answer is read until the server closes.
 */
export interface RawRequest {
  method: string;
  /** The request target exactly as sent (already percent-encoded, or deliberately not). */
  target: string;
  /** Header lines in order; a name may repeat. Bytes are sent as latin1. */
  headers?: [string, string][];
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function rawRequest(baseUrl: string, request: RawRequest, timeoutMs = 15_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: [string, string][] = [
    ['host', `${hostname}:${port}`],
    ['connection', 'close'],
    ...(request.headers ?? []),
  ];
  if (body && !headers.some(([name]) => name.toLowerCase() === 'content-length'))
    headers.push(['content-length', String(body.length)]);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms to ${request.method} ${request.target.slice(0, 200)}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close before reading a body it refuses (413): an EPIPE/ECONNRESET then is fine.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        reject(new Error(`no HTTP answer to ${request.method} ${request.target.slice(0, 200)}`));
        return;
      }
      const [statusLine = '', ...lines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
      const answerHeaders: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        answerHeaders[name] = answerHeaders[name] === undefined ? value : `${answerHeaders[name]}, ${value}`;
      }
      const rest = raw.subarray(headEnd + 4);
      const answerBody = answerHeaders['transfer-encoding']?.includes('chunked') ? dechunk(rest) : rest;
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: answerHeaders,
        body: answerBody.toString('utf8'),
      });
    });
    socket.write(head, 'latin1');
    if (body) socket.write(body);
  });
}

/** Whether an answer body shows internals: stack frames, source file paths, Node internals. */
export function showsInternals(body: string): boolean {
  return (
    /\n\s*at \S+/.test(body) ||
    /\bat (?:async )?\S+ \((?:file:|node:|\/)/.test(body) ||
    /[\w@./-]+\.(?:ts|js|mjs|cjs):\d+/.test(body) ||
    /node_modules|node:internal|\/work\//.test(body)
  );
}
