import type { Hono } from 'hono';
import { z } from 'zod';
import type { SandboxBank } from './bank.ts';
import { decide, openAuthorisation } from './pis-outcomes.ts';
import { tppError } from './tpp-errors.ts';

/**
 * The test controls of a sandbox bank's payments (no counterpart at a real bank; listed in pis.ts):
 * the PSU's answer in the bank's app, an expired one-time code, the ledger's accounts and behaviour.
 */

const behaviourSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('normal') }),
  z.object({ kind: z.literal('reject') }),
  z.object({ kind: z.literal('timeout') }),
  z.object({ kind: z.literal('insufficient') }),
  z.object({ kind: z.literal('slow'), delayMs: z.number().int().min(1).max(600_000) }),
]);

export function registerPisControls(app: Hono, bank: SandboxBank): void {
  const base = `/${bank.definition.code}`;
  const admin = `${base}/sandbox`;
  app.post(`${admin}/payments/:paymentId/decoupled/:decision{approve|deny}`, (c) => {
    const payment = bank.payments.get(c.req.param('paymentId'));
    if (!payment) return tppError(c, 'RESOURCE_UNKNOWN', 'The payment is not known to the bank');
    const auth = openAuthorisation(payment);
    if (auth?.approach !== 'DECOUPLED' || auth.scaStatus !== 'started')
      return tppError(c, 'STATUS_INVALID', 'No decoupled authorisation of this payment is waiting');
    decide(bank, payment, auth, c.req.param('decision') === 'approve');
    return c.body(null, 204);
  });

  app.post(`${admin}/payments/:paymentId/expire-code`, (c) => {
    const payment = bank.payments.get(c.req.param('paymentId'));
    const auth = payment && openAuthorisation(payment);
    if (!auth?.otpExpiresAt) return tppError(c, 'RESOURCE_UNKNOWN', 'No code of this payment is open');
    auth.otpExpiresAt = Date.now() - 1;
    return c.body(null, 204);
  });

  app.get(`${admin}/ledger/:iban`, (c) => {
    const account = bank.ledger.account(c.req.param('iban'));
    if (!account) return tppError(c, 'RESOURCE_UNKNOWN', 'No such account at this bank');
    return c.json(
      {
        ...account,
        debits: bank.ledger.debits(account.iban),
        behaviour: bank.ledger.behaviourOf(account.iban),
      },
      200,
    );
  });

  app.put(`${admin}/ledger/:iban/behaviour`, async (c) => {
    if (!bank.ledger.account(c.req.param('iban')))
      return tppError(c, 'RESOURCE_UNKNOWN', 'No such account at this bank');
    const parsed = behaviourSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return c.json({ error: parsed.error.issues[0]?.message }, 400);
    bank.ledger.setBehaviour(c.req.param('iban'), parsed.data);
    return c.json({ behaviour: bank.ledger.behaviourOf(c.req.param('iban')) }, 200);
  });

  app.put(`${admin}/ledger/:iban/balance`, async (c) => {
    if (!bank.ledger.account(c.req.param('iban')))
      return tppError(c, 'RESOURCE_UNKNOWN', 'No such account at this bank');
    const parsed = z
      .object({ balanceMinor: z.number().int().min(0) })
      .safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return c.json({ error: parsed.error.issues[0]?.message }, 400);
    bank.ledger.setBalance(c.req.param('iban'), parsed.data.balanceMinor);
    return c.json(bank.ledger.account(c.req.param('iban')), 200);
  });
}
