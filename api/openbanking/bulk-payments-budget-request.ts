import { bulkOperation } from './bulk-operation.ts';

/** `POST /api/8/bulk-payments/budget-request`: a bulk of budget payments from an added account (`ibanId`). */
export const bulkPaymentsBudgetRequestOperation = bulkOperation(
  'budget-request',
  'Bulk budget payment from an added account',
  'Up to 10,000 budget payments from an account the user added (`ibanId`). Every entry carries ' +
    '`regulatoryReportType` (one of 1, 2, 3, 4, 5, 6, 9) and `paymentCategory` (six digits); a wrong one is 400 ' +
    'naming `payments.<n>.<field>`.',
);
