import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { BankId, OwnerId, PlatformService, UserId } from '../search-attributes.ts';
import type { ConsentEndReason, ConsentKind, ConsentState, DailyReads } from './consents.ts';
import type {
  AuthenticationObject,
  ChallengeData,
  EmbeddedScaInput,
  OAuthScaPending,
  PsuPresence,
  ScaApproach,
  ScaStatus,
} from './xs2a.ts';

/**
 * The open-banking gateway's processes as their callers (API, activities, workflows, the platform's
 * wiring) see them: workflow ids (`<process>-<business id>`) and their prefixes, signals, updates, and
 * what crosses the boundary. The workflows themselves are in workflows/openbanking/, one file per process.
 *
 * No credential ever goes into a workflow id, search attribute or summary (they are shown in the Web UI
 * and searchable): a consent is keyed by its consent id, never by the `state` of its bank callback.
 */

/** Workflow id prefixes of the open-banking gateway, one per process. */
export const OPEN_BANKING_WORKFLOW_PREFIXES = {
  /** One consent with its SCA at the bank (workflows/openbanking/consent.ts). */
  consent: 'ob-consent-',
  /** The scheduled refreshes of an ACTIVE consent (workflows/openbanking/consent-refresh.ts). */
  consentRefresh: 'ob-consent-refresh-',
  /** Ending a consent the gateway no longer needs (workflows/openbanking/consent-termination.ts). */
  consentTermination: 'ob-consent-end-',
  /** A background re-read of one account (workflows/openbanking/account-refresh.ts). */
  accountRefresh: 'ob-refresh-',
  /** Deleting a user and ending its consents (workflows/openbanking/user-deletion.ts). */
  userDeletion: 'ob-user-deletion-',
  /** One single payment with its SCA at the bank (workflows/openbanking/payment.ts). */
  payment: 'ob-payment-',
  /** The schedule of the bank directory refresh, one per task queue (workflows/openbanking/bank-directory.ts). */
  bankDirectory: 'ob-bank-directory@',
  /** One bulk payment with its SCA (workflows/openbanking/bulk-payment.ts). */
  bulkPayment: 'ob-bulk-',
  /** One batch of a bulk's entries, a child of its bulk. */
  bulkBatch: 'ob-bulk-batch-',
} as const;

/** The search attributes of an open-banking workflow about a user (and its bank, when there is one). */
export const openBankingSearchAttributes = (subject: {
  agentId: string;
  userId: string;
  bankHash?: string;
}) => [
  { key: PlatformService, value: 'openbanking' },
  { key: OwnerId, value: subject.agentId },
  { key: UserId, value: subject.userId },
  ...(subject.bankHash ? [{ key: BankId, value: subject.bankHash }] : []),
];

// --- consent: one consent with its strong customer authentication at the bank --------------------

/** The workflow of one consent, keyed by our consent id (never by the `state` of its callback). */
export const consentWorkflowId = (consentId: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.consent}${consentId}`;

export interface ConsentFlowInput {
  consentId: string;
  /** The unique state of the callback path (a credential: never in the workflow id or summary). */
  state: string;
  kind: ConsentKind;
  /** The gateway's callback, given to the bank as TPP-Redirect-URI and TPP-Nok-Redirect-URI. */
  redirectUri: string;
  nokRedirectUri: string;
  psu?: PsuPresence;
  /** ISO time by which the bank must have called back (OPENBANKING_SCA_TIMEOUT after the start). */
  scaDeadline: string;
  /** OPENBANKING_BANK_REQUEST_TIMEOUT, to bound the bank calls the API waits for. */
  bankRequestTimeoutMs: number;
  /**
   * Decoupled SCA (a bank whose flow is `decoupled`): the user's id at the bank (PSU-ID), who approves in
   * the bank's app; the gateway reads the consent's status every `pollMs` instead of waiting for a callback.
   */
  decoupled?: { psuId: string; pollMs: number };
  /**
   * Embedded SCA (a bank whose flow is `embedded`, decision 0061): the gateway relays the user's
   * credentials, chosen method and one-time code to the bank, one consentEmbeddedScaUpdate each.
   */
  embedded?: true;
}

/** What POST consent answers: where to send the user's browser (redirect), or what to tell them (decoupled). */
export interface ScaStart {
  consentId: string;
  state: string;
  scaRedirectUrl: string | null;
  psuMessage: string | null;
  scaDeadline: string;
}

/** What the bank's redirect to `/redirect/{app}/state/{state}` carried (not trusted: the bank is asked). */
export interface BankCallback {
  /** It came to the Nok URI (the bank says SCA failed or was cancelled). */
  nok: boolean;
  bankConsentId: string | null;
  reportedStatus: string | null;
  /**
   * OAuth2 SCA (decision 0067): the authorization code and the `state` the bank's redirect carried
   * (absent on older signals and for the other approaches). The code is a secret: sealed by the codec.
   */
  code?: string | null;
  oauthState?: string | null;
}

/** POST consent: starts the workflow and waits, as one Update-with-start, for the bank's SCA redirect. */
export const consentStartedUpdate = defineUpdate<ScaStart>('consentStarted');
/** The bank sent the user back: the last step of the user's authorisation. */
export const bankCallbackSignal = defineSignal<[BankCallback]>('bankCallback');
/** The gateway ended the consent (DELETE iban, DELETE agent/user): the consent and its refreshes stop. */
export const consentEndedSignal = defineSignal('consentEnded');

/**
 * A step whose secret fields (bank user id and password, one-time code) wait, sealed, in ob_sca_secrets
 * (decision 0068): the workflow sees only which step it is and the reference the activity takes them by.
 */
export interface HeldScaStep {
  step: 'credentials' | 'code';
  secretRef: string;
}

/**
 * Steps given since decision 0068 hold their secrets outside the engine; the marker records it in the
 * history. Updates of the earlier shape (the step itself) are still accepted for runs in flight.
 */
export const EMBEDDED_SCA_SECRET_STORE_PATCH = 'embedded-sca-secret-store';

/** The activity failure type when a held step is gone (expired, or taken by an attempt that then failed). */
export const SCA_SECRET_GONE = 'ScaSecretGone';

/**
 * One step of a consent's embedded SCA (PUT consent/{consentId}/sca): the method choice as given; the
 * credentials and the code held outside the engine (or, in an Update sent before decision 0068, as given).
 */
export type EmbeddedScaRequest = (EmbeddedScaInput | HeldScaStep) & { psu?: PsuPresence };

/** Which step of the embedded SCA a request is, whichever shape it has. */
export const embeddedStepOf = (request: EmbeddedScaInput | HeldScaStep): 'credentials' | 'method' | 'code' =>
  'secretRef' in request
    ? request.step
    : 'password' in request
      ? 'credentials'
      : 'authenticationMethodId' in request
        ? 'method'
        : 'code';

/** Where a consent's embedded SCA stands after a step, and what the user gives next. */
export interface EmbeddedScaView {
  scaStatus: ScaStatus;
  /** `credentials`: psuId and password; `method`: one of scaMethods; `code`: the one-time code; null: ended. */
  next: 'credentials' | 'method' | 'code' | null;
  scaMethods: AuthenticationObject[];
  chosenScaMethod: AuthenticationObject | null;
  challengeData: ChallengeData | null;
  psuMessage: string | null;
}

/** A step of the embedded SCA, relayed to the bank; answered with where the SCA stands. */
export const consentEmbeddedScaUpdate = defineUpdate<EmbeddedScaView, [EmbeddedScaRequest]>(
  'consentEmbeddedSca',
);

/** Failure types of consentEmbeddedScaUpdate; the API answers them with its own status and code. */
export const EmbeddedScaRefusal = {
  notAwaiting: 'EmbeddedScaNotAwaiting',
  credentialsInvalid: 'EmbeddedScaCredentialsInvalid',
  codeExpired: 'EmbeddedScaCodeExpired',
  bankRefused: 'EmbeddedScaBankRefused',
  bankUnavailable: 'EmbeddedScaBankUnavailable',
  /** The step's password or code is no longer held (decision 0068): it must be given again. */
  stepExpired: 'EmbeddedScaStepExpired',
} as const;

/** Failure types of consentStartedUpdate; the API answers them with its own status and code. */
export const ConsentStartRefusal = {
  bankUnavailable: 'ConsentBankUnavailable',
  bankRefused: 'ConsentBankRefused',
  notStarting: 'ConsentNotStarting',
} as const;

/** createBankConsent: the bank consent of a recorded consent, with the gateway's callback. */
export interface BankConsentStart {
  consentId: string;
  /** The gateway's callback `/openbanking/redirect/{app}/state/{state}` (approved) and its Nok variant. */
  redirectUri: string;
  nokRedirectUri: string;
  /** The user at the keyboard when POST consent was called. */
  psu?: PsuPresence;
  /** Decoupled SCA: the user's id at the bank. */
  psuId?: string;
  /** Embedded SCA: the gateway relays the user's steps (decision 0061). */
  embedded?: boolean;
}

export interface BankConsentCreated {
  bankConsentId: string;
  /** Null for a decoupled SCA (the user approves in the bank's app). */
  scaRedirectUrl: string | null;
  psuMessage: string | null;
  /** Embedded SCA: the bank's link to start the authorisation with the user's credentials. */
  embeddedStartUrl?: string;
  /** OAuth2 SCA (decision 0067): the authorisation request's code_verifier and state (sealed in history). */
  oauth?: OAuthScaPending;
}

/** An account a consent added to the read model (in the consent.finished hook event). */
export interface StoredAccount {
  ibanId: string;
  iban: string;
  currency: string;
}

// --- consent-refresh: the scheduled refreshes of an ACTIVE consent -------------------------------

/** The scheduled refreshes of an ACTIVE consent, until it expires or ends. */
export const consentRefreshWorkflowId = (consentId: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.consentRefresh}${consentId}`;

export interface ConsentRefreshInput {
  consentId: string;
  /** Reads the gateway already made today with this consent (the SCA read, or the previous run's). */
  reads: DailyReads;
}

export interface ConsentRefreshPlan {
  status: ConsentState;
  validUntil: string;
  frequencyPerDay: number;
  /** OPENBANKING_REFRESH_INTERVAL and OPENBANKING_REFRESHES_PER_RUN. */
  intervalMs: number;
  refreshesPerRun: number;
}

export interface ConsentRefreshed {
  /** The consent's state after the refresh: anything but ACTIVE ends its scheduled refreshes. */
  status: ConsentState;
  refreshed: number;
  refused: number;
}

/** Why a refresh did not reach the bank's data, as stored in ob_accounts.refresh_error. */
export type RefreshError =
  | 'access_exceeded'
  | 'bank_unavailable'
  | 'consent_expired'
  | 'consent_invalid'
  | 'account_unknown'
  | 'bank_error';

// --- account-refresh: a background re-read of one account (cache initialisation) -----------------

export const accountRefreshWorkflowId = (ibanId: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.accountRefresh}${ibanId}`;

export interface AccountRefreshInput {
  ibanId: string;
}

// --- consent-termination: ending a consent the gateway no longer needs ---------------------------

/** Ending a bank consent the gateway no longer needs (DELETE iban, DELETE agent/user). */
export const consentTerminationWorkflowId = (consentId: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.consentTermination}${consentId}`;

export interface ConsentTerminationInput {
  consentId: string;
  reason?: ConsentEndReason;
}

// --- user-deletion: deleting a user and ending its consents at their banks -----------------------

export const userDeletionWorkflowId = (userId: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.userDeletion}${userId}`;

/** DELETE agent/user: answers once the user is marked deleted and its hashes are revoked. */
export const userDeletedUpdate = defineUpdate<void>('userDeleted');

// --- bank-directory: the scheduled refresh of the bank directory ---------------------------------

/** The schedule that runs refreshBankDirectory, one per deployment (task queue). */
export const bankDirectoryScheduleId = (taskQueue: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.bankDirectory}${taskQueue}`;

export interface BankDirectorySync {
  /** Active banks after the sync. */
  bankHashes: string[];
  /** Why the directory URL could not be read (its banks are then left as they were). */
  directoryError: string | null;
}

export interface BankDirectoryRefresh {
  banks: number;
  notices: number;
  /** Banks whose maintenance notices could not be read this time. */
  failedBanks: string[];
  directoryError: string | null;
}

// --- bulk-payment: one bulk with its single SCA and its entries recorded in batches --------------

/** The workflow of one bulk (workflows/openbanking/bulk-payment.ts), keyed by our bulk id. */
export const bulkPaymentWorkflowId = (bulkId: string) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.bulkPayment}${bulkId}`;
/** One batch of a bulk's entries, a child of the bulk's workflow. */
export const bulkBatchWorkflowId = (bulkId: string, index: number) =>
  `${OPEN_BANKING_WORKFLOW_PREFIXES.bulkBatch}${bulkId}-${index}`;

export interface BulkPaymentInput {
  bulkId: string;
  /** The unique state of the callback path (a credential: never in the workflow id or summary). */
  state: string;
  redirectUri: string;
  nokRedirectUri: string;
  psu?: PsuPresence;
  scaDeadline: string;
  bankRequestTimeoutMs: number;
  /** Entries of the bulk (seq 0 … entryCount-1) and per batch (OPENBANKING_BULK_BATCH_SIZE). */
  entryCount: number;
  batchSize: number;
  /** How often the bank's status is asked while it executes (OPENBANKING_BULK_POLL_INTERVAL). */
  pollIntervalMs: number;
}

export interface BulkBatchInput {
  bulkId: string;
  index: number;
  fromSeq: number;
  toSeq: number;
  bankRequestTimeoutMs: number;
}

/** What a bulk request answers once the bank knows the bulk: where the user authorises it. */
export interface BulkScaStart {
  bulkId: string;
  scaRedirectUrl: string;
  scaDeadline: string;
}

/** The bulk request: starts the workflow and waits, as one Update-with-start, for the bank's SCA page. */
export const bulkStartedUpdate = defineUpdate<BulkScaStart>('bulkStarted');
/** The bank sent the user back from the bulk's SCA. */
export const bulkCallbackSignal = defineSignal<[{ nok: boolean }]>('bulkCallback');

export const BulkStartRefusal = {
  bankUnavailable: 'BulkBankUnavailable',
  bankRefused: 'BulkBankRefused',
} as const;

// --- payment: one single payment with its SCA at the bank (workflows/openbanking/payment.ts) -------

/** The workflow of one payment, keyed by its code (`ob-payment-<code>`). */
export const paymentWorkflowId = (code: string) => `${OPEN_BANKING_WORKFLOW_PREFIXES.payment}${code}`;

export interface PaymentFlowInput {
  code: string;
  /** The unique state of the callback path and the hook call (a credential: never in ids or summaries). */
  state: string;
  /** The gateway's callback, given to the bank as TPP-Redirect-URI (and with ?outcome=nok as the Nok URI). */
  redirectUri: string;
  nokRedirectUri: string;
  /** A payment not confirmed (POST/PUT payment) within this is EXPIRED. */
  confirmationTimeoutMs: number;
  /** The SCA must end within this after the confirmation, else EXPIRED. */
  scaTimeoutMs: number;
  /** Decoupled SCA: how often the bank's authorisation status is read. */
  decoupledPollMs: number;
  bankRequestTimeoutMs: number;
}

/** What the confirmation (POST/PUT payment, direct-initiate) asks for. */
export interface PaymentConfirmRequest {
  approach: ScaApproach;
  psu?: PsuPresence;
}

/** POST/PUT payment: the first confirmation initiates the payment at the bank; later ones wait for the same. */
export const paymentConfirmUpdate = defineUpdate<void, [PaymentConfirmRequest]>('paymentConfirm');
/**
 * PUT payment/verify-sms: the bank's one-time code, relayed to its authorisation resource; held outside
 * the engine by its reference (decision 0068), or, in an Update sent before, the code itself.
 */
export type PaymentSmsRequest = ({ secretRef: string } | { smsCode: string }) & { psu?: PsuPresence };
export const paymentVerifySmsUpdate = defineUpdate<void, [PaymentSmsRequest]>('paymentVerifySms');
/** The bank sent the user back after a redirect SCA (`/redirect/{app}/state/{state}`). */
export const paymentCallbackSignal = defineSignal<[{ nok: boolean }]>('paymentCallback');

/**
 * DELETE payment/{code} (decision 0070): the user cancels the payment. Answered once it is CANCELLED
 * (`scaRedirectUrl` null), or with the bank's page where the user authorises the cancellation.
 */
export const paymentCancelUpdate = defineUpdate<{ scaRedirectUrl: string | null }, [{ psu?: PsuPresence }]>(
  'paymentCancel',
);
/** The bank sent the user back after the cancellation's own SCA (the callback marked `?sca=cancellation`). */
export const paymentCancellationCallbackSignal = defineSignal<[{ nok: boolean }]>(
  'paymentCancellationCallback',
);
/** Changes the payment workflow's commands for a cancellation (decision 0070). */
export const PAYMENT_CANCELLATION_PATCH = 'payment-cancellation';

/** What the bank said to DELETE /v1/payments/{product}/{id} (cancelBankPayment). */
export type BankPaymentCancellation =
  | { status: 'cancelled' }
  | { status: 'authorisationNeeded'; scaRedirectUrl: string; scaStatusUrl: string | null };

/** Failure types of the payment updates; the API answers each with its own status and code. */
export const PaymentRefusal = {
  /** The one-time code is wrong (the bank said PSU_CREDENTIALS_INVALID). */
  smsCodeInvalid: 'PaymentSmsCodeInvalid',
  smsCodeExpired: 'PaymentSmsCodeExpired',
  /** The code was used already (the authorisation is finalised or failed). */
  smsCodeUsed: 'PaymentSmsCodeUsed',
  /** The payment is not waiting for a one-time code (not confirmed yet, another SCA method, or ended). */
  notAwaitingCode: 'PaymentNotAwaitingCode',
  /** The code is no longer held (decision 0068): it must be sent again. */
  stepExpired: 'PaymentScaStepExpired',
  /** The payment is past cancelling (executed, rejected, cancelled, or the bank says so). */
  notCancellable: 'PaymentNotCancellable',
  /** The bank answered the cancellation with a refusal of another kind. */
  cancellationRefused: 'PaymentCancellationRefused',
  /** The bank could not be reached to cancel the payment. */
  bankUnavailable: 'PaymentBankUnavailable',
} as const;

/** What the bank answered when the payment was initiated (initiateBankPayment). */
export interface BankPaymentStarted {
  bankPaymentId: string;
  approach: ScaApproach;
  scaRedirectUrl: string | null;
  authorisationId: string | null;
}
