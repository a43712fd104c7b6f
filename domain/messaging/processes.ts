import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DeliveryReceipt } from './delivery-receipt.ts';

/**
 * The messaging gateway's processes as their callers (API, activities, the receipt router) see them:
 * workflow ids (`<process>-<business id>`) and their prefixes, signals, updates, and what crosses the
 * boundary. The workflows themselves are in workflows/messaging/.
 */

/** Workflow id prefixes of the messaging gateway, one per process. */
export const MESSAGING_WORKFLOW_PREFIXES = {
  /** One SMS or chat-app message (workflows/messaging/sms.ts). */
  sms: 'sms-',
  /** A batch of SMS handed over together (workflows/messaging/sms-batch.ts, decision 0074). */
  smsBatch: 'sms-batch-',
  /** One number lookup (workflows/messaging/hlr.ts). */
  hlr: 'hlr-',
  /** One sender-ID registration (workflows/messaging/sender-id.ts). */
  senderId: 'sender-id-',
  /** One verification code sent to a `from` number (workflows/messaging/numbers.ts). */
  numbers: 'numbers-',
  /** One SMS a handset sent to an assigned number: its event (workflows/messaging/inbound.ts, decision 0087). */
  inbound: 'inbound-',
} as const;

// --- sms: one SMS or chat-app message ------------------------------------------------------------

export interface MessageDeliveryInput {
  messageId: string;
  accountId: string;
  channel: 'sms' | 'chatapp';
  to: string;
  from: string;
  message: string;
  parts: number;
  /** ISO time; the message is not handed to the carrier before it. */
  scheduled?: string;
  dlrUrl?: string;
  /** How long to wait for the delivery receipt before the message ends `unknown` (no receipt). */
  receiptTimeoutMs: number;
  /**
   * How long the hand-over to the carrier is retried before the message counts as failed
   * (SMS_SUBMIT_TIMEOUT; absent in workflows started before it existed: one hour).
   */
  submitTimeoutMs?: number;
}

export const messageWorkflowId = (messageId: string) => `${MESSAGING_WORKFLOW_PREFIXES.sms}${messageId}`;

/** Delivery receipts arrive as signals, routed by the carrier message id (see cmd/messaging/receipts.ts). */
export const deliveryReceiptSignal = defineSignal<[DeliveryReceipt]>('deliveryReceipt');

// --- sms-batch: SMS handed over and followed together (decision 0074) ------------------------------

/** One SMS of a batch: what its report needs besides the carrier's answer. */
export interface BatchedMessage {
  messageId: string;
  accountId: string;
  to: string;
  from: string;
  message: string;
  parts: number;
  dlrUrl?: string;
}

export interface MessageBatchInput {
  /** The batch's id: its workflow id is `sms-batch-<batchId>`, recorded on each message (process_id). */
  batchId: string;
  messages: BatchedMessage[];
  /** How long each message waits for its delivery receipt before it counts as expired. */
  receiptTimeoutMs: number;
  /** How long the hand-over to the carrier is retried before the messages not handed over fail. */
  submitTimeoutMs: number;
}

/** A batch's id from its first message's: a batch handed over twice gets the same workflow id. */
export const messageBatchWorkflowId = (batchId: string) =>
  `${MESSAGING_WORKFLOW_PREFIXES.smsBatch}${batchId}`;

/** Receipts of a batch's messages, as many as the receipt router matched at once. */
export const deliveryReceiptsSignal = defineSignal<[DeliveryReceipt[]]>('deliveryReceipts');

// --- hlr: one asynchronous number lookup ---------------------------------------------------------

export interface HlrLookupInput {
  lookupId: string;
  accountId: string;
  /** E.164 with the leading + */
  number: string;
  /** ISO alpha-2 country of the number, reported when no network answers. */
  numberCountry: string | null;
  callBackUrl: string;
  /** How long to keep retrying an unavailable HLR provider. */
  lookupTimeoutMs: number;
}

/** The HLR result as the spec names it; POSTed to `callBackUrl` and kept in the read model. */
export interface HlrResult {
  id: string;
  /**
   * null on success; otherwise 'unknown_subscriber', 'absent_subscriber', 'undetermined' (the provider's
   * verdict, decision 0062) or 'lookup_failed' (no answer in time).
   */
  error: string | null;
  imsi: string | null;
  /** ISO 3166 alpha-2 country of the serving network (of the number when no network is known). */
  country: string | null;
  /** MCC+MNC of the serving network. */
  operatorId: string | null;
  mcc: string | null;
  mnc: string | null;
  /** MCC+MNC of the networks the number was ported from. */
  ported: string[];
}

export type HlrLookupStatus = 'completed' | 'failed';

export const hlrWorkflowId = (lookupId: string) => `${MESSAGING_WORKFLOW_PREFIXES.hlr}${lookupId}`;

// --- sender-id: one sender-ID registration -------------------------------------------------------

export interface SenderIdRegistrationInput {
  registrationId: string;
  accountId: string;
  senderId: string;
  /** ISO time after which the registration can no longer be confirmed (also in the read model). */
  expiresAt: string;
  /**
   * How long a confirmed registration waits for the operator's decision before it expires
   * (SENDER_ID_APPROVAL_TIMEOUT; absent in workflows started before approval existed: 30 days).
   */
  approvalTimeoutMs?: number;
}

/** pending → confirmed (by the account) → approved | rejected (by an operator); pending|confirmed → expired. */
export type SenderIdStatus = 'pending' | 'confirmed' | 'approved' | 'rejected' | 'expired';

/** The operator's decision on a confirmed registration (admin API and `npm run admin`). */
export interface SenderIdDecision {
  decision: 'approved' | 'rejected';
  /** Why; recorded and shown to the account. */
  reason: string;
  /** For operators only. */
  note?: string | undefined;
}

export interface SenderIdDecided {
  decidedAt: string;
}

export interface SenderIdConfirmation {
  confirmedAt: string;
}

export const senderIdWorkflowId = (registrationId: string) =>
  `${MESSAGING_WORKFLOW_PREFIXES.senderId}${registrationId}`;

/** Failure types of a refused confirmation or decision; the API answers them with 409 and its own codes. */
export const SenderIdRefusal = {
  alreadyConfirmed: 'SenderIdAlreadyConfirmed',
  expired: 'SenderIdExpired',
  /** A decision on a registration that is not confirmed-and-waiting (pending, or already decided). */
  notAwaitingApproval: 'SenderIdNotAwaitingApproval',
} as const;

/** Confirmation is a request/response step: the caller learns at once whether it took effect. */
export const confirmSenderIdUpdate = defineUpdate<SenderIdConfirmation>('confirmSenderId');

/** The operator's decision, a request/response step like the confirmation. */
export const decideSenderIdUpdate = defineUpdate<SenderIdDecided, [SenderIdDecision]>('decideSenderId');

// --- numbers: one verification code sent to a `from` number ---------------------------------------

export interface NumberVerificationInput {
  numberId: string;
  /** A new code is a new challenge; the workflow id is `numbers-<challengeId>`. */
  challengeId: string;
  accountId: string;
  /** E.164 with the leading + */
  number: string;
  /** The platform's own sender of the code SMS (NUMBER_VERIFICATION_SENDER). */
  from: string;
  /** ISO time after which the code is no longer accepted; sending is not retried past it. */
  expiresAt: string;
}

export const numberVerificationWorkflowId = (challengeId: string) =>
  `${MESSAGING_WORKFLOW_PREFIXES.numbers}${challengeId}`;

/** The `inboundMessage` workflow of one SMS a handset sent (decision 0087): its event, delivered once. */
export const inboundWorkflowId = (inboundMessageId: string) =>
  `${MESSAGING_WORKFLOW_PREFIXES.inbound}${inboundMessageId}`;
