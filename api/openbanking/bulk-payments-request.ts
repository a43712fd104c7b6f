import { bulkOperation } from './bulk-operation.ts';

/** `POST /api/8/bulk-payments/request`: a bulk from an account the user added (`ibanId`). */
export const bulkPaymentsRequestOperation = bulkOperation(
  'request',
  'Bulk payment from an added account',
  'Up to 10,000 transfers from an account the user added (`ibanId`, from GET ibans; another user’s is 404).',
);
