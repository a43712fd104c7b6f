import { defineUpdate } from '@temporalio/workflow';
import type { DocTypeId } from './loan-documents.ts';

/**
 * The lending processes that call sibling services (decision 0047): bank verification through the
 * open-banking gateway (workflows/lending/bank-verification.ts) and signing codes sent by SMS through
 * the messaging gateway (workflows/lending/signing-code.ts). Their activities are the only lending code
 * that talks to those gateways; the use cases (application/lending/) reach them with an Update or a
 * start and read what the step recorded.
 */

// --- bank verification: one workflow per customer -------------------------------------------------------

/** Business id as workflow id: the customer's bank-verification steps, one at a time per customer. */
export const bankVerificationWorkflowId = (tenantId: string, customerId: string) =>
  `lending-bank-verification-${tenantId}-${customerId}`;

export interface BankVerificationInput {
  tenantId: string;
  customerId: string;
}

/** The gateway a step talks to (LENDING_OPENBANKING_URL, else the API's own `/openbanking`). */
export interface GatewayStep {
  gatewayUrl: string;
}

export interface VerificationBank {
  bankHash: string;
  name: string;
  country: string;
}

export interface ConsentStep extends GatewayStep {
  loanId: string;
  bankHash: string;
  /** The customer's browser, passed on to the bank as the PSU's. */
  userAgent?: string | undefined;
}

export interface OutcomeStep extends GatewayStep {
  verificationId: string;
}

/** The banks the customer may verify at (enrolling the customer first). */
export const verificationBanksUpdate = defineUpdate<VerificationBank[], [GatewayStep]>('verificationBanks');
/** Starts an account-list consent and records the loan's pending verification; answers its id. */
export const verificationConsentUpdate = defineUpdate<{ verificationId: string }, [ConsentStep]>(
  'verificationConsent',
);
/** Reads how the verification's consent stands and records the decision once it has ended. */
export const verificationOutcomeUpdate = defineUpdate<void, [OutcomeStep]>('verificationOutcome');

/** Failure types of a bank-verification step, as its Update fails with them. */
export const BankVerificationFailure = {
  /** The gateway refused (4xx): details `{ status, code }`. Not retried. */
  refused: 'OpenBankingRefused',
  /** The gateway could not serve the step (unreachable, 5xx, not configured). */
  unavailable: 'OpenBankingUnavailable',
  /**
   * The enrolment's address is already enrolled at the gateway: an earlier attempt was processed but its
   * answer (the only copy of the user hash) was lost. The workflow enrols under the next address.
   */
  enrolmentLost: 'OpenBankingEnrolmentLost',
} as const;

/** Details of an `OpenBankingRefused` failure. */
export interface GatewayRefusalDetails {
  status: number;
  code: string;
}

/**
 * The placeholder address a customer is enrolled under (no personal data: nothing a verification does
 * needs more). The first enrolment keeps the address of decision 0042; each enrolment whose answer was
 * lost moves to the next (the gateway refuses an address twice and never shows a user hash again).
 */
export const enrolmentEmail = (customerId: string, attempt: number) =>
  attempt === 0
    ? `${customerId}@customers.lending.invalid`
    : `${customerId}+${attempt}@customers.lending.invalid`;

/** Lost enrolment answers the workflow moves past before it gives up (each leaves an unused user). */
export const MAX_ENROLMENT_ATTEMPTS = 5;

// --- signing codes: one workflow per code sent --------------------------------------------------------

export const signingCodeWorkflowId = (
  tenantId: string,
  loanId: string,
  docTypeId: DocTypeId,
  requestId: string,
) => `lending-signing-code-${tenantId}-${loanId}-${docTypeId}-${requestId}`;

/** What sending a code needs; never the code (the activity makes it and keeps only its digest). */
export interface SigningCodeRequest {
  tenantId: string;
  loanId: string;
  customerId: string;
  docTypeId: DocTypeId;
  documentName: string;
  contentHash: string;
  /** The messaging gateway's base (LENDING_MESSAGING_URL, else the API's own `/messaging`). */
  messagingUrl: string;
}

export interface SigningCodeSent {
  expiresAt: string;
}

/** Failure type of a code the messaging gateway did not accept: the code was forgotten. */
export const SMS_NOT_SENT = 'SmsNotSent';

// --- card deletion: one workflow per card deleted -------------------------------------------------------

/** A card forgotten at the collection gateway before lending deletes it (DeleteMethod, decision 0045). */
export const cardDeletionWorkflowId = (tenantId: string, cardId: string) =>
  `lending-card-deletion-${tenantId}-${cardId}`;

/** Which card to forget; never its token (the activity opens it from lending's table). */
export interface CardDeletionRequest {
  tenantId: string;
  customerId: string;
  cardId: string;
}

/** Failure type of a card the gateway could not be reached to forget: nothing changed. */
export const COLLECT_GATEWAY_UNAVAILABLE = 'CollectGatewayUnavailable';

// --- the collection gateway's notification key: fetched by an activity ----------------------------------

/**
 * One fetch of the key that verifies the gateway's notifications (decision 0045), shared by the
 * notifications that miss it together. The business id is the gateway's URL, hashed by the caller.
 */
export const notificationKeyWorkflowId = (gatewayId: string) => `lending-notification-key-${gatewayId}`;

export interface NotificationKeyRequest {
  /** The collection gateway's base (LENDING_COLLECT_URL, else the platform's own `/collect`). */
  gatewayUrl: string;
}
