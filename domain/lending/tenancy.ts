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
