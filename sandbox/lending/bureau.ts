import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import type { BureauOutcome, CreditCheck } from '../../connectors/lending/bureau.ts';

/**
 * The sandbox credit bureau: a separate HTTP server speaking the protocol of connectors/lending/bureau.ts.
 * Its answer depends on the test customer's last name (case-insensitive), so that every branch of the
 * loan's decision can be reached through the public API:
 *
 *   Decline   → decline (score 420)
 *   Refer     → refer to manual review (score 610)
 *   Slow      → answers only after `slowMs` (default 60 s): longer than the platform waits, a timeout
 *   Outage    → 503 every time (the bureau is down)
 *   any other → approve (score 760)
 *
 * Every request must carry the configured `X-Api-Key` (compared in constant time); the same `reference`
 * answers the first answer again.
 */
export const SANDBOX_BUREAU_TEST_CUSTOMERS = {
  Decline: 'decline',
  Refer: 'refer',
  Slow: 'time out',
  Outage: 'unavailable (503)',
} as const;

export interface SandboxBureauOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The API key the platform must present (LENDING_BUREAU_API_KEY). */
  apiKey: string;
  /** How long a `Slow` customer's check takes. */
  slowMs?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

const checkRequest = z.object({
  reference: z.string().min(1).max(200),
  applicant: z.object({
    firstName: z.string().max(200),
    lastName: z.string().min(1).max(200),
    ssn: z.string().max(64).optional(),
    birthDate: z.string().max(32).optional(),
  }),
  amount: z.string().regex(/^\d{1,13}(\.\d{1,2})?$/),
  term: z.number().int().positive(),
  productName: z.string().min(1).max(200),
});

const ANSWERS: Record<BureauOutcome, { score: number; reasons: string[] }> = {
  approve: { score: 760, reasons: [] },
  decline: { score: 420, reasons: ['insufficient credit history', 'high debt-to-income ratio'] },
  refer: { score: 610, reasons: ['identity needs manual verification'] },
};

export async function startSandboxBureau(options: SandboxBureauOptions) {
  const host = options.host ?? '127.0.0.1';
  const expectedKey = sha256(options.apiKey);
  const slowMs = options.slowMs ?? 60_000;
  const checks = new Map<string, CreditCheck>();
  /** Every request received (tests: count checks, see refused keys); status 0 while unanswered. */
  const requests: { reference?: string; lastName?: string; status: number }[] = [];
  /** The timers of `Slow` checks, cleared at stop. */
  const waiting = new Set<ReturnType<typeof setTimeout>>();
  const refuse = (c: Context, status: 400 | 401 | 503, code: string, message: string) =>
    c.json({ error: { code, message } }, status);

  const app = new Hono();
  app.post('/v1/credit-checks', async (c) => {
    const presented = c.req.header('x-api-key');
    if (presented === undefined || !timingSafeEqual(expectedKey, sha256(presented))) {
      requests.push({ status: 401 });
      return refuse(c, 401, 'unauthorised', 'X-Api-Key is missing or not valid');
    }
    const parsed = checkRequest.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      requests.push({ status: 400 });
      const issue = parsed.error.issues[0];
      return refuse(
        c,
        400,
        'bad_request',
        `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not valid'}`,
      );
    }
    const request = parsed.data;
    const lastName = request.applicant.lastName.trim().toLowerCase();
    // Recorded on arrival (a `Slow` check is answered, status 200, only later).
    const seen: (typeof requests)[number] = {
      reference: request.reference,
      lastName: request.applicant.lastName,
      status: 0,
    };
    requests.push(seen);
    if (lastName === 'outage') {
      seen.status = 503;
      return refuse(c, 503, 'unavailable', 'the bureau is down (sandbox test customer Outage)');
    }
    if (lastName === 'slow') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(timer);
          resolve();
        }, slowMs);
        waiting.add(timer);
      });
    }
    let check = checks.get(request.reference);
    if (!check) {
      const decision: BureauOutcome =
        lastName === 'decline' ? 'decline' : lastName === 'refer' ? 'refer' : 'approve';
      check = {
        id: `chk_${randomBytes(8).toString('hex')}`,
        reference: request.reference,
        decision,
        ...ANSWERS[decision],
      };
      checks.set(request.reference, check);
    }
    seen.status = 200;
    return c.json(check, 200);
  });
  app.notFound((c) => c.json({ error: { code: 'not_found', message: 'not found' } }, 404));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () =>
      resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    /** Every request received, in order. */
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of waiting) clearTimeout(timer);
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

export type SandboxBureau = Awaited<ReturnType<typeof startSandboxBureau>>;
