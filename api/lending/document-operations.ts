import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { declineDocumentOperation } from './customer/loans-decline-document.ts';
import { documentsOperation } from './customer/loans-documents.ts';
import { documentsGetOperation } from './customer/loans-documents-get.ts';
import { resendSmsCodeOperation } from './customer/loans-resend-sms-code.ts';
import { signDocumentOperation } from './customer/loans-sign-document.ts';

/** The system loan documents signed by SMS (Customer/Loans/{loanId}/Documents and the rest): decision 0040. */
export const documentOperations: readonly Operation<LendingEnv>[] = [
  documentsOperation,
  documentsGetOperation,
  resendSmsCodeOperation,
  signDocumentOperation,
  declineDocumentOperation,
];
