import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import type { InboundSms } from '../../domain/messaging/inbound.ts';

/** What the message workflow hands to a carrier. */
export interface CarrierSubmission {
  messageId: string;
  to: string;
  from: string;
  message: string;
  /**
   * Called once a submit_sm may go out (a place in the window held), awaited just before the first
   * one is written: the activity's durable wire mark (decision 0084). When it throws, nothing is sent.
   */
  beforeWire?: (carrier?: string) => Promise<void>;
  /**
   * Only this carrier (its identity) may take the message: a message in doubt on it is never handed to
   * another (decision 0079). Unset: the carrier router chooses by the destination's route.
   */
  carrier?: string | undefined;
}

/**
 * A submission the carrier certainly did not take: nothing was written to the wire, or the carrier
 * answered "not now" (throttled, no bind...). Thrown (transient, retried); unlike a lost answer, it
 * leaves the message out of doubt (decision 0084).
 */
export class NotTakenError extends Error {
  override name = 'NotTakenError';
}

export type CarrierSubmitResult =
  | {
      outcome: 'submitted';
      /** The carrier's id of the message; of its first part when it was sent in parts. */
      carrierMessageId: string;
      /** When sent as several short messages (UDH or SAR parts): each part's carrier id, in order. */
      carrierPartIds?: string[];
      /** The identity of the carrier that took it, when a router chose among several (decision 0079). */
      carrier?: string;
    }
  /** The carrier refused the message for good (e.g. SMPP ESME_RINVDSTADR); retrying cannot help. */
  | { outcome: 'rejected'; error: string };

/**
 * An SMS carrier (an SMSC spoken to over SMPP 3.4). Transient failures (no bind, throttling, timeouts)
 * are thrown so that the activity is retried; permanent refusals are returned as `rejected`.
 */
export interface SmsCarrier {
  /**
   * Which SMSC and account the messages go to (`smpp://<system id>@<host:port>`): recorded with each
   * submission, because a carrier's message ids are unique only within it, and not even there for
   * ever (an SMSC that restarts its counter hands them out again).
   */
  readonly identity: string;
  submit(submission: CarrierSubmission): Promise<CarrierSubmitResult>;
  /**
   * Registers the listener for delivery receipts (deliver_sm) received on any bound session; it is told
   * the identity of the carrier the receipt came from (a router forwards its carriers' receipts).
   */
  onReceipt(listener: (receipt: DeliveryReceipt, carrier?: string) => Promise<void>): void;
  /**
   * Registers the listener for SMS that handsets sent to our numbers (a deliver_sm that is not a receipt,
   * decision 0087). The carrier is answered once the listener's promise settles: resolved, the SMS is
   * acknowledged; rejected (or no listener yet), the carrier is asked to send it again later. A carrier
   * that cannot receive SMS leaves it out.
   */
  onInbound?(listener: (sms: InboundSms) => Promise<void>): void;
  close(): Promise<void>;
}

/**
 * A chat-app provider (the WhatsApp Cloud API, decision 0062). `submit` hands one message over; what
 * becomes of it arrives later as signed webhook events (connectors/messaging/whatsapp-webhook.ts).
 */
export interface ChatAppProvider {
  /** Which provider account the messages go to (API base and sending number), recorded with each submission. */
  readonly identity: string;
  submit(submission: CarrierSubmission): Promise<CarrierSubmitResult>;
}

/** Raw answer of an HLR (home location register) lookup provider for one number. */
export interface HlrAnswer {
  /**
   * null when the lookup succeeded; otherwise the platform's word for the provider's verdict:
   * 'absent_subscriber', 'unknown_subscriber' or 'undetermined'.
   */
  error: string | null;
  imsi: string | null;
  mcc: string | null;
  mnc: string | null;
  /** Networks the number was ported from/to, as MCC+MNC strings (empty when never ported). */
  ported: string[];
}

export interface HlrProvider {
  lookup(e164: string): Promise<HlrAnswer>;
}
