import { and, inArray, ne } from 'drizzle-orm';
import { obConsents } from '../db/schema/openbanking.ts';
import { bankHashOf } from '../domain/openbanking/bank-directory.ts';
import { driveSca } from '../sandbox/openbanking/sca-driver.ts';
import type { ObCall } from '../test/support/openbanking-client.ts';
import type { BenchContext } from './context.ts';
import { pause } from './load.ts';

/** Consents driven as a customer's browser would, shared by the open-banking scenarios. */

const BANK_A = bankHashOf('bank-a');

/**
 * What a customer's browser does: POST consent (as the integrator's backend), then the bank's SCA page:
 * log in as the sandbox user, approve, and POST the bank's auto-submitted return form to the gateway.
 */
export async function completeConsent(
  call: ObCall,
  headers: Record<string, string>,
  psuId: string,
): Promise<{ consentId: string }> {
  const { status, body } = await call<{ consentId: string; scaRedirectUrl: string }>(
    'POST',
    '/api/8/consent',
    {
      headers,
      body: { bankHash: BANK_A },
    },
  );
  if (status !== 201) throw new Error(`POST consent answered ${status} ${JSON.stringify(body)}`);
  const { submitted } = await driveSca(body.scaRedirectUrl, {
    psuId,
    password: `sandbox-${psuId}`,
    decision: 'approve',
    submit: true,
  });
  await submitted?.arrayBuffer();
  if (!submitted || submitted.status >= 400) throw new Error(`the callback answered ${submitted?.status}`);
  return { consentId: body.consentId };
}

/** Polls the read model until every consent has left AWAITING_SCA; answers their final rows. */
export async function untilFinished({ db }: BenchContext, ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await db
      .select({ id: obConsents.id, status: obConsents.status })
      .from(obConsents)
      .where(and(inArray(obConsents.id, ids), ne(obConsents.status, 'AWAITING_SCA')));
    if (rows.length === ids.length || Date.now() > deadline) return rows;
    await pause(100);
  }
}
