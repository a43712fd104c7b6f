import { deskIdnGetOperation } from './idn-get.ts';
import { deskOperationsGetOperation } from './operations-get.ts';
import { deskOperationsListOperation } from './operations-list.ts';
import { deskPageOperation } from './page.ts';
import { deskPageLoginOperation } from './page-login.ts';
import { deskPageLogoutOperation } from './page-logout.ts';
import { deskPagePayOperation } from './page-pay.ts';
import { deskPagePayoutOperation } from './page-payout.ts';
import { deskPaymentsOperation } from './payments.ts';
import { deskPayoutsOperation } from './payouts.ts';
import { deskSessionsCreateOperation } from './sessions-create.ts';
import { deskSessionsDeleteOperation } from './sessions-delete.ts';

/**
 * Cash desks (offices and ATMs, decision 0030) under /collect/desk: the JSON desk API (/desk/api/...,
 * bearer session token, the platform's JSON error model) and the hosted cash-desk page (/desk).
 */
export const deskOperations = [
  deskSessionsCreateOperation,
  deskSessionsDeleteOperation,
  deskIdnGetOperation,
  deskPaymentsOperation,
  deskPayoutsOperation,
  deskOperationsListOperation,
  deskOperationsGetOperation,
  deskPageOperation,
  deskPageLoginOperation,
  deskPageLogoutOperation,
  deskPagePayOperation,
  deskPagePayoutOperation,
];

/** Paths of the desk API and page, below the collect base path. */
export const isDeskPath = (path: string) => path === '/desk' || path.startsWith('/desk/');
