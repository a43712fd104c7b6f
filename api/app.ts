import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { UseCaseDeps } from '../application/shared/deps.ts';
import { Refusal } from '../application/shared/refusal.ts';
import type { RequestMetrics } from '../platform/metrics.ts';
import { createCodecApi } from './admin/codec.ts';
import { createAdminApi, presentsAdminToken } from './admin/index.ts';
import { isLendingUploadPath } from './lending/paths.ts';
import type { AppEnv } from './shared/context.ts';
import { docsAssets } from './shared/docs.ts';
import { toErrorResponse } from './shared/errors.ts';
import { inputGuard, type MalformedAnswer } from './shared/input-guard.ts';
import { observeRequests } from './shared/observability.ts';
import { rateLimit } from './shared/rate-limit.ts';
import { securityHeaders } from './shared/security-headers.ts';
import { allowedMethods, answerUnknownRoute } from './shared/unknown-route.ts';

const MAX_BODY_BYTES = 1024 * 1024;
/** The open-banking bulk payments: up to 10,000 entries, about 2 MB of JSON. */
const MAX_BULK_BODY_BYTES = 8 * 1024 * 1024;
const BULK_PAYMENT_PATH =
  /^\/openbanking\/api\/\d+\/bulk-payments\/(payment|request|budget-payment|budget-request)$/;
/** An operator's bank statement upload: up to COLLECT_STATEMENT_MAX_BYTES of camt XML (64 MiB by default). */
const STATEMENT_UPLOAD_PATH = '/admin/collect/statements';
/** Room for a multipart envelope around the largest statement; the document itself is measured exactly. */
const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;

/**
 * Credentials that an interface puts in a path (the open-banking `.../consents-request/{userHash}`)
 * must not reach the logs: any segment shaped like an identity hash is replaced.
 */
const IDENTITY_HASH_SEGMENT = /\/(agent|user|public|admin)_[A-Za-z0-9_-]{43}(?=\/|$)/g;
/** The open-banking bank callback's `state` (`/redirect/{app}/state/{state}`) is a credential too. */
const CALLBACK_STATE_SEGMENT = /(\/redirect\/[^/]+\/state\/)[^/?]+/g;
/** The Web UI's codec session key (`/codec/session/{key}`, api/admin/codec.ts) opens every payload. */
const CODEC_SESSION_SEGMENT = /^(\/codec\/session\/)[^/?]+/;
export const loggablePath = (path: string) =>
  path
    .replace(IDENTITY_HASH_SEGMENT, '/$1_<redacted>')
    .replace(CALLBACK_STATE_SEGMENT, '$1<redacted>')
    .replace(CODEC_SESSION_SEGMENT, '$1<redacted>');

/** Resolves with the name of each component that is not ready (empty when all are). */
export type ReadinessProbe = () => Promise<string[]>;

/** A service's API as the platform mounts it (cmd/services.ts lists them). */
export interface ServiceApi {
  basePath: string;
  mount(app: Hono<AppEnv>, basePath: string): void;
  /** Its answer to malformed input (api/shared/input-guard.ts); default: JSON `400 malformed_request`. */
  answerMalformed?: MalformedAnswer;
}

/** A caller's `x-request-id` is kept (and echoed) only when it looks like one; else a fresh one is used. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The platform's single HTTP application: every service under its base path, one error model,
 * one access-log line per request.
 */
export function createApp(
  deps: UseCaseDeps,
  readiness: ReadinessProbe,
  services: readonly { api?: ServiceApi }[],
  /** Where each answered request is counted (platform/metrics.ts); none: not counted. */
  requestMetrics?: RequestMetrics,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const presented = c.req.header('x-request-id');
    const requestId = presented && REQUEST_ID.test(presented) ? presented : randomUUID();
    c.set('requestId', requestId);
    c.set('deps', deps);
    const started = performance.now();
    await next();
    c.header('x-request-id', requestId);
    // The path only: query strings may carry credentials (`at`) and are never logged.
    deps.logger.info(
      {
        kind: 'request',
        requestId,
        method: c.req.method,
        path: loggablePath(c.req.path),
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });

  // Metrics and a trace span per request, by route template (decision 0059).
  app.use('*', observeRequests(requestMetrics));

  // On every answer, errors and 404s included (api/shared/security-headers.ts).
  app.use('*', securityHeaders);

  // Per presented credential and per client address, before any lookup or body read.
  app.use(
    '*',
    rateLimit({
      perCredential: deps.config.RATE_LIMIT_PER_CREDENTIAL,
      perAddress: deps.config.RATE_LIMIT_PER_ADDRESS,
    }),
  );

  // No operation of the platform needs a larger body (but a bulk payment of up to 10,000 entries and
  // a bank statement upload); a larger one is refused before it is read whole.
  const limitOf = (
    maxSize: number,
    refusal = new Refusal(413, 'payload_too_large', `The body exceeds ${maxSize} bytes`),
  ) =>
    bodyLimit({
      maxSize,
      onError: (c) => {
        // The rest of the body is not read, so this connection must not carry another request; the
        // Fetch-level `connection` header is dropped by the Node adapter, so set it on Node's response.
        (c.env as Partial<HttpBindings> | undefined)?.outgoing?.setHeader('connection', 'close');
        return c.json(refusal.body(), 413);
      },
    });
  const defaultLimit = limitOf(MAX_BODY_BYTES);
  const bulkLimit = limitOf(MAX_BULK_BODY_BYTES);
  // Refused in the words the statement import uses for a document over the limit.
  const statementMaxBytes = deps.config.COLLECT_STATEMENT_MAX_BYTES;
  const statementLimit = limitOf(
    statementMaxBytes + MULTIPART_ALLOWANCE_BYTES,
    new Refusal(
      413,
      'statement_too_large',
      `The statement exceeds ${statementMaxBytes} bytes (COLLECT_STATEMENT_MAX_BYTES)`,
    ),
  );
  // A lending file upload streams to the file storage: its own limit (413 file_too_large below it).
  const fileMaxBytes = deps.config.LENDING_FILE_MAX_BYTES;
  const uploadLimit = limitOf(
    fileMaxBytes + MULTIPART_ALLOWANCE_BYTES,
    new Refusal(413, 'file_too_large', `The file exceeds ${fileMaxBytes} bytes (LENDING_FILE_MAX_BYTES)`),
  );
  const limitFor = (c: Context<AppEnv>) => {
    if (c.req.method === 'POST' && isLendingUploadPath(c.req.path)) return uploadLimit;
    // Only the platform operator may send that much: anyone else gets the default limit.
    if (c.req.method === 'POST' && c.req.path === STATEMENT_UPLOAD_PATH && presentsAdminToken(c))
      return statementLimit;
    return BULK_PAYMENT_PATH.test(c.req.path) ? bulkLimit : defaultLimit;
  };
  app.use('*', (c, next) => limitFor(c)(c, next));

  // NUL bytes, undecodable percent-encoding, unparseable multipart: refused before any operation, in
  // the error shape of the service the path belongs to.
  app.use(
    '*',
    inputGuard(
      (c, problem) => {
        const service = services.find(
          ({ api }) => api && (c.req.path === api.basePath || c.req.path.startsWith(`${api.basePath}/`)),
        )?.api;
        if (service?.answerMalformed) return service.answerMalformed(c, problem);
        return c.json(
          new Refusal(400, 'malformed_request', 'The request is malformed', [problem]).body(),
          400,
        );
      },
      (c) => c.req.method === 'POST' && isLendingUploadPath(c.req.path),
    ),
  );

  app.get('/health', async (c) => {
    const notReady = await readiness();
    return notReady.length === 0
      ? c.json({ status: 'ok' }, 200)
      : c.json({ status: 'starting', notReady }, 503);
  });

  app.route('/assets/swagger-ui', docsAssets());
  for (const { api } of services) api?.mount(app, api.basePath);
  app.route('/admin', createAdminApi());
  app.route('/codec', createCodecApi());

  const methodsAt = allowedMethods(app.routes);
  app.notFound((c) => answerUnknownRoute(c, methodsAt));
  app.onError((error, c) =>
    toErrorResponse(error, c, (e) =>
      deps.logger.error({ err: e, path: loggablePath(c.req.path) }, 'unhandled error'),
    ),
  );
  return app;
}

/**
 * Requests Node's HTTP parser refuses before the app sees them (a NUL or control byte in a header,
 * headers over Node's limit, a bad content-length) are answered in the error model too: `400
 * malformed_request` or `431 headers_too_large`, instead of Node's bodiless default.
 */
export function answerClientErrors(server: {
  on(event: 'clientError', listener: (error: Error & { code?: string }, socket: Duplex) => void): unknown;
}): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = JSON.stringify(
      status === 431
        ? new Refusal(431, 'headers_too_large', 'The request headers are too large').body()
        : new Refusal(400, 'malformed_request', 'The request is not valid HTTP').body(),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
