import type { Client } from '@temporalio/client';
import type { Context } from 'hono';
import type { LendingEnv } from './context.ts';
import type { CustomerRecord } from './customer-records.ts';
import { customerDetailsCompleted } from './loan-records.ts';

/**
 * After Customer/Details PUT or Management/Customers/{customerId} PUT: when the details are complete,
 * the customer's loan applications waiting in Pre-Origination move on (api/lending/loan-records.ts).
 * Called on every update that leaves them complete, so a move missed once is made the next time.
 */
export async function afterDetailsUpdate(c: Context<LendingEnv>, record: CustomerRecord): Promise<void> {
  if (!record.detailsComplete) return;
  const temporal: Client = c.get('deps').temporal;
  await customerDetailsCompleted(temporal, c.get('lendingTenant').id, record.customerId);
}
