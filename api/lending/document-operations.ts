import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { declineDocumentOperation } from './decline-document.ts';
import { documentsOperation } from './documents.ts';
import { documentsGetOperation } from './documents-get.ts';
import { resendSmsCodeOperation } from './resend-sms-code.ts';
import { signDocumentOperation } from './sign-document.ts';

/** The system loan documents signed by SMS (Customer/Loans/{loanId}/Documents and the rest): decision 0040. */
export const documentOperations: readonly Operation<LendingEnv>[] = [
  documentsOperation,
  documentsGetOperation,
  resendSmsCodeOperation,
  signDocumentOperation,
  declineDocumentOperation,
];
