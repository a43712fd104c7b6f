import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { customerConfirmAccountOperation } from './customer/confirm-account.ts';
import { customerDetailsGetOperation } from './customer/details-get.ts';
import { customerDetailsPutOperation } from './customer/details-put.ts';
import { customerDisclaimerOperation } from './customer/disclaimer.ts';
import { customerRegisterOperation } from './customer/register.ts';
import { customerStatesOperation } from './customer/states.ts';
import { dictionaryCancellationReasonsOperation } from './dictionary/cancellation-reasons.ts';
import { managementBranchOfficesOperation } from './management/branch-offices.ts';
import { managementBankAccountsCreateOperation } from './management/customers-bank-accounts-create.ts';
import { managementBankAccountsDeleteOperation } from './management/customers-bank-accounts-delete.ts';
import { managementBankAccountsListOperation } from './management/customers-bank-accounts-list.ts';
import { managementCustomersCreateOperation } from './management/customers-create.ts';
import { managementCustomerGetOperation } from './management/customers-get.ts';
import { managementCustomerPutOperation } from './management/customers-put.ts';
import { managementCustomersSearchOperation } from './management/customers-search.ts';
import { userChangePasswordOperation } from './user/change-password.ts';
import { userLoginOperation } from './user/login.ts';
import { userRequestPasswordResetOperation } from './user/request-password-reset.ts';
import { userResetPasswordOperation } from './user/reset-password.ts';

/** Users (Customer/Register, User/*): decision 0037. */
export const userOperations: readonly Operation<LendingEnv>[] = [
  customerRegisterOperation,
  userLoginOperation,
  userChangePasswordOperation,
  userRequestPasswordResetOperation,
  userResetPasswordOperation,
];

/** Customers (Customer/*, Management/Customers/*) and the tenant's dictionaries. */
export const customerOperations: readonly Operation<LendingEnv>[] = [
  customerDetailsGetOperation,
  customerDetailsPutOperation,
  customerDisclaimerOperation,
  customerConfirmAccountOperation,
  customerStatesOperation,
  managementCustomersCreateOperation,
  managementCustomersSearchOperation,
  managementCustomerGetOperation,
  managementCustomerPutOperation,
  managementBankAccountsListOperation,
  managementBankAccountsCreateOperation,
  managementBankAccountsDeleteOperation,
  managementBranchOfficesOperation,
  dictionaryCancellationReasonsOperation,
];
