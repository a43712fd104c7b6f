import type { Context } from 'hono';
import type { DocumentCaller, InvestorCaller, LoanCaller } from '../../application/lending/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import type { LoanActor } from '../../domain/lending/loan-process.ts';
import { requireCustomer, requireUser } from './auth.ts';
import type { LendingEnv } from './context.ts';

/** Who is asking, from the request's credentials: the customer of the user token, else management (the key). */
export function actorOf(c: Context<LendingEnv>): LoanActor {
  const user = c.get('lendingUser');
  return user?.customerId ? { role: 'customer', id: user.id } : { role: 'management' };
}

/** A customer's request (user token): their own loans only (401/403 without a customer's token). */
export function customerCaller(c: Context<LendingEnv>): LoanCaller & { customerId: string } {
  const user = requireCustomer(c);
  return { tenantId: c.get('lendingTenant').id, customerId: user.customerId, actor: actorOf(c) };
}

/** Management's request (the tenant's key): any loan of the tenant. */
export function managementCaller(c: Context<LendingEnv>): LoanCaller {
  return { tenantId: c.get('lendingTenant').id, actor: actorOf(c) };
}

/** A customer acting on their own loan's documents: the user is recorded with each decision. */
export function documentCaller(c: Context<LendingEnv>): DocumentCaller {
  return { ...customerCaller(c), userId: requireCustomer(c).id };
}

/** An investor's request (user token): 403 `not_an_investor` for a customer's token (decision 0052). */
export function investorCaller(c: Context<LendingEnv>): InvestorCaller {
  const user = requireUser(c);
  if (user.role !== 'investor')
    throw new Refusal(
      403,
      'not_an_investor',
      'This operation acts for an investor; the user token is not an investor’s',
    );
  return { tenantId: c.get('lendingTenant').id, investorId: user.id };
}
