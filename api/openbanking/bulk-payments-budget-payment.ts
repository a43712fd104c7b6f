import { bulkOperation } from './bulk-operation.ts';

/** `POST /api/8/bulk-payments/budget-payment`: a bulk of budget payments from a debtor IBAN the user names. */
export const bulkPaymentsBudgetPaymentOperation = bulkOperation(
  'budget-payment',
  'Bulk budget payment',
  'Up to 10,000 budget payments from the debtor account (`bankHash`, `debtorIban`). Every entry carries ' +
    '`regulatoryReportType` (one of 1, 2, 3, 4, 5, 6, 9) and `paymentCategory` (six digits); a wrong one is 400 ' +
    'naming `payments.<n>.<field>`.',
);
