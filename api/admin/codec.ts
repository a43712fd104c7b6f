import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { type CodecCredential, type CodecDirection, payloadCodec } from '../../application/platform/index.ts';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses, fieldErrorsOf, toErrorResponse } from '../shared/errors.ts';
import { publicBaseUrl } from '../shared/public-url.ts';

/**
 * Temporal's remote codec protocol (decisions 0049, 0081): `POST …/encode` and `POST …/decode` take and
 * answer `{"payloads":[{"metadata":{"<key>":"<base64>"},"data":"<base64>"}]}` (the Payloads message as
 * proto3 JSON). Mounted at `/codec` (the CLI: `--codec-endpoint <api>/codec --codec-auth "Bearer
 * <ADMIN_TOKEN>"`; the Web UI with a sign-in: `codec.passAccessToken`, the sign-in's token as bearer)
 * and at `/codec/session/<key>` (a Web UI without a sign-in, given the session URL). `npm start` serves
 * the dev server's UI from a loopback listener of its own (createLocalUiCodecApi).
 */

const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');
const payloadsBody = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() }))
    .max(1000),
});

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));
const text = (value: Uint8Array | null | undefined) =>
  Buffer.from(value ?? new Uint8Array()).toString('base64');

/** The Web UI origins allowed to call: TEMPORAL_UI_URL's, or the dev server's UI on this machine. */
function allowedOrigins(config: AppEnv['Variables']['deps']['config']): string[] {
  if (config.TEMPORAL_UI_URL) return [new URL(config.TEMPORAL_UI_URL).origin];
  return [`http://127.0.0.1:${config.TEMPORAL_UI_PORT}`, `http://localhost:${config.TEMPORAL_UI_PORT}`];
}

const bearerOf = (c: Context<AppEnv>) => /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];

export function createCodecApi(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(
    '*',
    cors({
      origin: (origin, c) => (allowedOrigins(c.get('deps').config).includes(origin) ? origin : null),
      allowMethods: ['POST', 'OPTIONS'],
      // The UI sends its sign-in's ID token as Authorization-Extras beside the bearer access token.
      allowHeaders: ['content-type', 'x-namespace', 'authorization', 'authorization-extras'],
      credentials: true,
      maxAge: 600,
    }),
  );
  const handle = (direction: CodecDirection, sessionRoute: boolean) => (c: Context<AppEnv>) =>
    transcode(
      c,
      direction,
      sessionRoute ? { sessionKey: c.req.param('key') ?? '' } : { bearer: bearerOf(c) },
    );
  for (const direction of ['encode', 'decode'] as const) {
    app.post(`/${direction}`, handle(direction, false));
    app.post(`/session/:key/${direction}`, handle(direction, true));
  }
  return app;
}

/** Parses a Payloads body, has the use case encode or decode it for `credential`, answers the result. */
async function transcode(c: Context<AppEnv>, direction: CodecDirection, credential: CodecCredential) {
  const parsed = payloadsBody.safeParse(await c.req.json().catch(() => undefined));
  if (!parsed.success) throw Refusal.validation(fieldErrorsOf(parsed.error));
  const payloads = await payloadCodec.transcodePayloads(c.get('deps'), {
    credential,
    direction,
    payloads: parsed.data.payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, bytes(value)]),
      ),
      data: bytes(payload.data ?? ''),
    })),
  });
  return c.json({
    payloads: payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, text(value)]),
      ),
      data: text(payload.data),
    })),
  });
}

/**
 * The codec endpoint of `npm start`'s own Web UI (decision 0081), served on a loopback listener of its
 * own (cmd/web-ui-codec.ts) in sandbox mode, with no sign-in: the dev server's UI cannot sign anyone
 * in. What stands in for one: the listener binds 127.0.0.1 only; a request must name that listener as
 * its Host (no DNS rebinding) and carry the UI's own Origin (a browser sets it and no page can forge
 * it), so no other site open in the browser can have it decode; CORS grants only that origin.
 */
export function createLocalUiCodecApi(
  deps: UseCaseDeps,
  { uiOrigins, hosts }: { uiOrigins: readonly string[]; hosts: readonly string[] },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    if (!hosts.includes(c.req.header('host') ?? '')) {
      throw new Refusal(403, 'forbidden_host', 'This codec endpoint answers on its loopback address only');
    }
    await next();
  });
  app.use(
    '*',
    cors({
      origin: (origin) => (uiOrigins.includes(origin) ? origin : null),
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['content-type', 'x-namespace'],
      maxAge: 600,
    }),
  );
  for (const direction of ['encode', 'decode'] as const) {
    app.post(`/${direction}`, (c) => {
      if (!uiOrigins.includes(c.req.header('origin') ?? '')) {
        throw new Refusal(
          403,
          'forbidden_origin',
          "Only the dev server's Web UI may use this codec endpoint",
        );
      }
      return transcode(c, direction, { localUi: true });
    });
  }
  app.notFound((c) => c.json(Refusal.notFound(`${c.req.method} ${c.req.path}`).body(), 404));
  app.onError((error, c) =>
    toErrorResponse(error, c, (e) => deps.logger.error({ err: e, path: c.req.path }, 'unhandled error')),
  );
  return app;
}

const sessionUrlRoute = createRoute({
  method: 'get',
  path: '/codec/session-url',
  tags: ['Admin'],
  summary: "The Web UI's codec endpoint for this operator",
  description:
    "Answers the URL to enter as the Temporal Web UI's codec endpoint (Settings → Codec Server, browser setting): the UI then shows decoded payloads. It is derived from ADMIN_TOKEN; rotating the token revokes it.",
  responses: {
    200: {
      description: 'The session URL',
      content: { 'application/json': { schema: z.object({ endpoint: z.string() }) } },
    },
    ...errorResponses,
  },
});

/** `GET /admin/codec/session-url` (behind the admin token like every operator endpoint). */
export function registerCodecAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(sessionUrlRoute, async (c) =>
    c.json(
      {
        endpoint: await payloadCodec.codecSessionUrl(c.get('deps'), {
          bearer: bearerOf(c),
          apiBaseUrl: publicBaseUrl(c),
        }),
      },
      200,
    ),
  );
}
