import { bulkOperation } from './bulk-operation.ts';

/** `POST /api/8/bulk-payments/payment`: a bulk from a debtor IBAN the user names (no added account). */
export const bulkPaymentsPaymentOperation = bulkOperation(
  'payment',
  'Bulk payment',
  'Up to 10,000 transfers from the debtor account (`bankHash`, `debtorIban`) to creditor IBANs.',
);
