import type { Hono } from 'hono';
import { z } from 'zod';
import { verifyTppSignature } from '../../credentials/openbanking/tpp-signing.ts';
import type { SandboxBank } from './bank.ts';
import { tppError } from './tpp-errors.ts';

/**
 * Verifies the signature of every XS2A request that carries one (and requires one when the bank's
 * policy says so): a wrong key, a body changed after signing or another certificate is 401
 * SIGNATURE_INVALID / CERTIFICATE_INVALID. Register before the XS2A routes.
 *
 *   PUT /{code}/sandbox/tpp-signing   { required, trusted? }   the bank's signing policy
 */
export function registerTppSignatureCheck(app: Hono, bank: SandboxBank): void {
  const v1 = `/${bank.definition.code}/v1`;
  app.use(`${v1}/*`, async (c, next) => {
    const policy = bank.tppSigning;
    const signed =
      c.req.header('signature') !== undefined || c.req.header('tpp-signature-certificate') !== undefined;
    if (!signed && !policy.required) return next();
    const body = ['GET', 'HEAD', 'DELETE'].includes(c.req.method) ? '' : await c.req.text();
    const check = verifyTppSignature({
      header: (name) => c.req.header(name),
      body,
      ...(policy.trusted ? { trusted: policy.trusted } : {}),
    });
    if (!check.ok) return tppError(c, check.code, check.text);
    return next();
  });
  app.put(`/${bank.definition.code}/sandbox/tpp-signing`, async (c) => {
    const parsed = z
      .object({ required: z.boolean(), trusted: z.array(z.string().min(1)).max(20).optional() })
      .safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return c.json({ error: parsed.error.issues[0]?.message }, 400);
    bank.tppSigning = {
      required: parsed.data.required,
      ...(parsed.data.trusted ? { trusted: parsed.data.trusted } : {}),
    };
    return c.json(bank.tppSigning, 200);
  });
}
