import type { AppEnv } from '../shared/context.ts';

/** Permission levels of a `lender_ApiKey` (the spec's Authentication rule 1). */
export type LendingPermission = 'front_office' | 'management' | 'payment_options';

/** The tenant a request acts in: the one its `lender_ApiKey` belongs to (production or staging). */
export interface LendingTenant {
  id: string;
  name: string;
  environment: 'production' | 'staging';
  /** Tenant features the spec makes behaviour depend on. */
  features: { stateManagement: boolean; multipleOffers: boolean };
}

/** The person a `lender_UserAuthToken` acts for, always inside the request's tenant. */
export interface LendingUser {
  id: string;
  login: string;
  role: 'customer' | 'investor';
  /** Set for a customer (borrower). */
  customerId?: string;
}

/**
 * What a lending operation's handler sees (set by api/lending/auth.ts before any operation runs):
 * `lendingTenant` always; `lendingUser` when the route's security names the user token.
 */
export interface LendingEnv extends AppEnv {
  Variables: AppEnv['Variables'] & {
    lendingTenant: LendingTenant;
    lendingPermissions: readonly LendingPermission[];
    lendingUser?: LendingUser;
  };
}
