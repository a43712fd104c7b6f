import { Decimal } from 'decimal.js';

/**
 * Investors (decision 0052): their personal details and the preferences that filter the Opportunities
 * they see. Pure types and rules.
 */

export interface InvestorDetails {
  firstName?: string | undefined;
  lastName?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  country?: string | undefined;
}

/**
 * Which opportunities an investor sees (each bound optional: none set, every loan open for funding)
 * and the most one bid of theirs may be.
 */
export interface InvestorPreferences {
  minAmount?: string | undefined;
  maxAmount?: string | undefined;
  minTerm?: number | undefined;
  maxTerm?: number | undefined;
  /** Credit products' names; empty or absent: all. */
  products?: string[] | undefined;
  /** No bid of the investor may be larger. */
  maxBid?: string | undefined;
}

/** The bounds of a pair that are the wrong way round (the fields to name in a refusal). */
export function preferenceConflicts(preferences: InvestorPreferences): { field: string; message: string }[] {
  const conflicts: { field: string; message: string }[] = [];
  const { minAmount, maxAmount, minTerm, maxTerm } = preferences;
  if (minAmount !== undefined && maxAmount !== undefined && new Decimal(minAmount).gt(maxAmount))
    conflicts.push({ field: 'maxAmount', message: 'must not be less than minAmount' });
  if (minTerm !== undefined && maxTerm !== undefined && minTerm > maxTerm)
    conflicts.push({ field: 'maxTerm', message: 'must not be less than minTerm' });
  return conflicts;
}
