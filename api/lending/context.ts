import type { LendingPermission, LendingTenant, LendingUser } from '../../domain/lending/tenancy.ts';
import type { AppEnv } from '../shared/context.ts';

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
