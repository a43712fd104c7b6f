import { z } from 'zod';
import { balancesOf } from '../../db/collect/ledger.ts';
import { ledgerAccount } from '../../domain/collect/ledger.ts';
import { currencies, DEFAULT_CURRENCY, MIN_TEXT, parsePayload } from '../../domain/collect/payloads.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { authenticate } from './obligation.ts';

/** GET /collect/merchant/balance: MIN and an optional CURRENCY (BGN by default). */
const MerchantBalancePayload = z
  .object({
    MIN: z.string().regex(MIN_TEXT, 'must be D followed by 9 digits'),
    CURRENCY: z
      .enum(currencies, { error: `must be one of ${currencies.join(', ')}` })
      .default(DEFAULT_CURRENCY),
    ENCODING: z.string().optional(),
  })
  .transform((p) => ({ min: p.MIN, currency: p.CURRENCY }));

/**
 * The merchant's balance in the gateway's ledger (docs/collect.md "Ledger"): what the gateway owes it
 * after its settled payments, less its payouts (reserved when registered), sends and fees.
 */
export async function merchantBalance(
  deps: UseCaseDeps,
  params: Record<string, string>,
): Promise<{ min: string; currency: string; balanceMinor: number }> {
  const { merchant, packet } = await authenticate(deps, params);
  const { currency } = parsePayload(MerchantBalancePayload, packet);
  const balances = await balancesOf(deps.db, ledgerAccount.merchant(merchant.min));
  const balanceMinor = balances.find((balance) => balance.currency === currency)?.balanceMinor ?? 0;
  return { min: merchant.min, currency, balanceMinor };
}
