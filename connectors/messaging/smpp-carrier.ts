import smpp, { type DecodedMessage, type Pdu, type PduFields, type Session } from 'smpp';
import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import type { InboundSms } from '../../domain/messaging/inbound.ts';
import { isAlphanumericSender } from '../../domain/messaging/phone.ts';
import {
  concatenationReference,
  concatenationUdh,
  type LongMessageMode,
  type ReferenceBits,
  splitSegments,
  UDH_OCTETS,
} from '../../domain/messaging/segments.ts';
import { deliveryReceiptFromSmpp } from '../../domain/messaging/smpp-receipt.ts';
import { TokenBuckets } from '../../domain/rate-limit.ts';
import type { Logger } from '../../platform/logger.ts';
import {
  type CarrierSubmission,
  type CarrierSubmitResult,
  NotTakenError,
  type SmsCarrier,
} from './carriers.ts';

/**
 * SMS carrier over SMPP 3.4: one transceiver session to the SMSC, opened on first use (a submission,
 * or registering the receipt listener — the worker must be bound to receive receipts that were queued
 * while it was away) and then kept: when it closes, it is bound again with growing pauses.
 */
export interface SmppCarrierOptions {
  /** smpp://host:port */
  url: string;
  systemId: string;
  password: string;
  logger: Logger;
  /** How long to wait for bind_resp / submit_sm_resp before the attempt counts as failed (transient). */
  submitTimeoutMs?: number;
  enquireLinkMs?: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /**
   * How a text longer than one segment goes to this SMSC (SMPP_LONG_MESSAGES, decision 0055):
   * `message_payload` (one submit_sm, the SMSC splits it; the default), `udh` (one submit_sm per part,
   * each with a concatenation UDH and esm_class UDHI) or `sar` (one submit_sm per part with the
   * sar_msg_ref_num / sar_total_segments / sar_segment_seqnum TLVs).
   */
  longMessages?: LongMessageMode;
  /** The UDH's reference size in `udh` mode: 8 (IEI 0x00, 153 septets a part) or 16 (IEI 0x08, 152). */
  udhReferenceBits?: ReferenceBits;
  /**
   * At most this many submit_sm outstanding on the bind (SMPP's window, SMPP_WINDOW; 32 unless given):
   * further submissions wait for a submit_sm_resp. An SMSC answers a client that exceeds its own
   * window with throttling errors.
   */
  window?: number;
  /**
   * At most this many submit_sm a second on this bind (each part of a long message counts), spaced
   * evenly; unset: no limit. Per worker process (decision 0079).
   */
  submitRate?: number | null | undefined;
}

const ESM_CLASS_RECEIPT = 0x04;
const ESM_CLASS_UDHI = 0x40;
const DATA_CODING = { GSM7: 0x00, UCS2: 0x08 } as const;
const TON = { INTERNATIONAL: 1, ALPHANUMERIC: 5 } as const;
const NPI = { UNKNOWN: 0, ISDN: 1 } as const;

/** Answers the SMSC may give that mean "not now": the submission is retried by the activity. */
const TRANSIENT = new Set([
  smpp.errors.ESME_RINVBNDSTS,
  smpp.errors.ESME_RSYSERR,
  smpp.errors.ESME_RMSGQFUL,
  smpp.errors.ESME_RTHROTTLED,
  smpp.errors.ESME_RX_T_APPN,
  smpp.errors.ESME_RUNKNOWNERR,
]);

const statusNames = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

/** e.g. "ESME_RINVDSTADR (0x0B)" */
export function smppStatusText(status: number): string {
  const hex = `0x${status.toString(16).toUpperCase().padStart(2, '0')}`;
  return `${statusNames.get(status) ?? 'UNKNOWN_STATUS'} (${hex})`;
}

/** `smpp://<system id>@<host:port>`: the SMSC and the account bound on it (see SmsCarrier.identity). */
export function smppCarrierIdentity(url: string, systemId: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${encodeURIComponent(systemId)}@${parsed.host}`;
  } catch {
    return `${url}#${systemId}`;
  }
}

export function createSmppCarrier(options: SmppCarrierOptions): SmsCarrier {
  const log = options.logger;
  const responseTimeoutMs = options.submitTimeoutMs ?? 10_000;
  const reconnectMinMs = options.reconnectMinMs ?? 250;
  const reconnectMaxMs = options.reconnectMaxMs ?? 10_000;

  const identity = smppCarrierIdentity(options.url, options.systemId);
  let receiptListener: ((receipt: DeliveryReceipt, carrier?: string) => Promise<void>) | undefined;
  let inboundListener: ((sms: InboundSms) => Promise<void>) | undefined;
  /** The bound session, or the bind in progress. */
  let bound: Promise<Session> | undefined;
  let current: Session | undefined;
  let closed = false;
  let failures = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  /** Submissions waiting for their submit_sm_resp; failed at once when their session closes. */
  const waiting = new Map<Session, Set<(error: Error) => void>>();
  const window = createWindow(options.window ?? 32);
  const pace = options.submitRate ? createPacer(options.submitRate) : undefined;

  function scheduleReconnect() {
    if (closed || reconnectTimer) return;
    const delay = Math.min(reconnectMinMs * 2 ** failures, reconnectMaxMs);
    failures += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      session().catch(() => {}); // logged in bind; the next attempt is already scheduled
    }, delay);
    reconnectTimer.unref();
  }

  function session(): Promise<Session> {
    if (closed) return Promise.reject(new Error('SMPP carrier is closed'));
    if (!bound) {
      bound = bind().then(
        (s) => {
          failures = 0;
          current = s;
          return s;
        },
        (error: Error) => {
          bound = undefined;
          log.warn({ err: error.message, url: options.url }, 'smpp bind failed');
          scheduleReconnect();
          throw error;
        },
      );
    }
    return bound;
  }

  function bind(): Promise<Session> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        s.destroy();
        reject(error);
      };
      const timer = setTimeout(
        () => fail(new Error(`SMPP bind timed out after ${responseTimeoutMs} ms`)),
        responseTimeoutMs,
      );
      const s = smpp.connect(
        { url: options.url, auto_enquire_link_period: options.enquireLinkMs ?? 30_000 },
        () => {
          s.bind_transceiver({ system_id: options.systemId, password: options.password }, (pdu) => {
            if (pdu.command_status !== 0) {
              fail(new Error(`SMPP bind refused: ${smppStatusText(pdu.command_status)}`));
              return;
            }
            settled = true;
            clearTimeout(timer);
            log.info({ url: options.url, systemId: options.systemId }, 'smpp bound');
            resolve(s);
          });
        },
      );
      s.on('error', (error: Error) => {
        log.debug({ err: error.message }, 'smpp socket error');
        fail(error);
      });
      s.on('close', () => {
        fail(new Error('SMPP connection closed before bind'));
        for (const reject of waiting.get(s) ?? [])
          reject(new Error('SMPP session closed before submit_sm_resp'));
        waiting.delete(s);
        if (current === s) {
          current = undefined;
          bound = undefined;
          if (!closed) log.warn({ url: options.url }, 'smpp session closed; binding again');
          scheduleReconnect();
        }
      });
      s.on('pdu', (pdu: Pdu) => {
        switch (pdu.command) {
          case 'deliver_sm':
            void onDeliver(s, pdu);
            return;
          case 'enquire_link':
            s.send(pdu.response());
            return;
          case 'unbind':
            s.send(pdu.response(), () => s.close());
            return;
        }
      });
    });
  }

  async function onDeliver(s: Session, pdu: Pdu) {
    let status = 0;
    if (((pdu.esm_class ?? 0) & ESM_CLASS_RECEIPT) !== 0) {
      const text = messageText(pdu.short_message) || messageText(pdu.message_payload);
      const receipt = deliveryReceiptFromSmpp(text, pdu.receipted_message_id);
      if (!receipt) log.warn({ text }, 'smpp receipt not understood; acknowledged and dropped');
      else
        status = await handTo(
          receiptListener && ((value: DeliveryReceipt) => receiptListener!(value, identity)),
          receipt,
          { carrierMessageId: receipt.carrierMessageId },
        );
    } else {
      // A mobile-originated SMS (decision 0087): its text decoded by node-smpp from data_coding.
      const sms: InboundSms = {
        carrier: identity,
        from: pdu.source_addr ?? '',
        to: pdu.destination_addr ?? '',
        text: messageText(pdu.message_payload) || messageText(pdu.short_message),
      };
      status = await handTo(inboundListener, sms, { kind: 'inbound' });
    }
    s.send(pdu.response({ command_status: status }));
  }

  /**
   * The deliver_sm_resp status once the listener has the PDU's content: 0, or a temporary error that makes
   * the SMSC send it again later (nobody to hand it to yet, or the listener failed).
   */
  async function handTo<T>(
    listener: ((value: T) => Promise<void>) | undefined,
    value: T,
    context: Record<string, unknown>,
  ): Promise<number> {
    if (!listener) return smpp.errors.ESME_RX_T_APPN;
    try {
      await listener(value);
      return 0;
    } catch (error) {
      log.error({ err: (error as Error).message, ...context }, 'deliver_sm listener failed');
      return smpp.errors.ESME_RX_T_APPN;
    }
  }

  async function submitPdu(s: Session, fields: PduFields, beforeWire?: () => Promise<void>): Promise<Pdu> {
    await pace?.();
    await window.enter();
    try {
      if (beforeWire) {
        try {
          await beforeWire();
        } catch (error) {
          throw new NotTakenError(`not submitted: ${(error as Error).message}`);
        }
      }
      return await sendSubmitPdu(s, fields);
    } finally {
      window.leave();
    }
  }

  function sendSubmitPdu(s: Session, fields: PduFields): Promise<Pdu> {
    return new Promise((resolve, reject) => {
      const pending = waiting.get(s) ?? new Set<(error: Error) => void>();
      waiting.set(s, pending);
      const done = (error: Error | undefined, pdu?: Pdu) => {
        clearTimeout(timer);
        pending.delete(abort);
        if (error) reject(error);
        else resolve(pdu!);
      };
      const abort = (error: Error) => done(error);
      pending.add(abort);
      const timer = setTimeout(() => {
        done(new Error(`SMPP submit_sm_resp not received within ${responseTimeoutMs} ms`));
        // A session that stops answering is stuck; a fresh one is bound on the next use.
        s.destroy();
      }, responseTimeoutMs);
      const sent = s.submit_sm(fields, (pdu) => done(undefined, pdu));
      if (!sent) done(new NotTakenError('SMPP session is not writable'));
    });
  }

  /** One submit_sm: the SMSC's id, or its permanent refusal; a transient answer is thrown (retried). */
  async function submitOne(
    s: Session,
    messageId: string,
    fields: PduFields,
    beforeWire?: () => Promise<void>,
  ): Promise<{ outcome: 'submitted'; carrierMessageId: string } | { outcome: 'rejected'; error: string }> {
    const response = await submitPdu(s, fields, beforeWire);
    // Answered, but not taken: the message is not in doubt.
    if (response.command === 'generic_nack') {
      throw new NotTakenError(
        `SMPP submit_sm answered with generic_nack: ${smppStatusText(response.command_status)}`,
      );
    }
    if (response.command_status === 0 && response.message_id) {
      log.debug({ messageId, carrierMessageId: response.message_id }, 'smpp submit_sm accepted');
      return { outcome: 'submitted', carrierMessageId: response.message_id };
    }
    const reason = smppStatusText(response.command_status);
    // The SMSC no longer counts us as bound: drop the session so the next attempt binds afresh.
    if (response.command_status === smpp.errors.ESME_RINVBNDSTS) s.destroy();
    // Accepted without an id: taken, but its receipt cannot be matched (in doubt, not "not taken").
    if (response.command_status === 0) throw new Error(`SMPP submit_sm failed for now: ${reason}`);
    if (TRANSIENT.has(response.command_status))
      throw new NotTakenError(`SMPP submit_sm failed for now: ${reason}`);
    log.info({ messageId, reason }, 'smpp submit_sm rejected');
    return { outcome: 'rejected', error: reason };
  }

  return {
    identity,

    async submit(submission: CarrierSubmission): Promise<CarrierSubmitResult> {
      const s = await session();
      const mode = options.longMessages ?? 'message_payload';
      const referenceBits = mode === 'sar' ? 16 : (options.udhReferenceBits ?? 8);
      const segmented = splitSegments(submission.message, UDH_OCTETS[referenceBits]);
      const alphanumeric = isAlphanumericSender(submission.from);
      const envelope: PduFields = {
        source_addr_ton: alphanumeric ? TON.ALPHANUMERIC : TON.INTERNATIONAL,
        source_addr_npi: alphanumeric ? NPI.UNKNOWN : NPI.ISDN,
        source_addr: alphanumeric ? submission.from : submission.from.replace(/^\+/, ''),
        dest_addr_ton: TON.INTERNATIONAL,
        dest_addr_npi: NPI.ISDN,
        destination_addr: submission.to.replace(/^\+/, ''),
        registered_delivery: 1,
        esm_class: 0,
        data_coding: segmented.encoding === 'GSM-7' ? DATA_CODING.GSM7 : DATA_CODING.UCS2,
      };
      const total = segmented.parts.length;
      if (total === 1 || mode === 'message_payload') {
        // More than one segment: the SMSC splits the message_payload, so we send no UDH ourselves.
        return submitOne(
          s,
          submission.messageId,
          total === 1
            ? { ...envelope, short_message: submission.message }
            : { ...envelope, message_payload: submission.message },
          submission.beforeWire,
        );
      }
      // Each part a short message of its own, under one reference derived from the message id: a
      // retried submission sends the very same parts, which the handset puts together once.
      const reference = concatenationReference(submission.messageId, referenceBits);
      const carrierPartIds: string[] = [];
      for (const [index, text] of segmented.parts.entries()) {
        const seq = index + 1;
        const fields: PduFields =
          mode === 'udh'
            ? {
                ...envelope,
                esm_class: ESM_CLASS_UDHI,
                short_message: {
                  udh: Buffer.from(concatenationUdh(reference, total, seq, referenceBits)),
                  message: text,
                },
              }
            : {
                ...envelope,
                short_message: text,
                sar_msg_ref_num: reference,
                sar_total_segments: total,
                sar_segment_seqnum: seq,
              };
        // The wire mark before the first part; once a part was taken, a later "not now" leaves the
        // message in doubt (its first parts are at the carrier).
        const answer = await submitOne(
          s,
          submission.messageId,
          fields,
          seq === 1 ? submission.beforeWire : undefined,
        ).catch((error: Error) => {
          throw seq > 1 && error instanceof NotTakenError ? new Error(error.message) : error;
        });
        // A part refused for good: the text cannot arrive whole, so the message is rejected.
        if (answer.outcome === 'rejected')
          return { outcome: 'rejected', error: `part ${seq} of ${total}: ${answer.error}` };
        carrierPartIds.push(answer.carrierMessageId);
      }
      return { outcome: 'submitted', carrierMessageId: carrierPartIds[0]!, carrierPartIds };
    },

    onReceipt(listener) {
      receiptListener = listener;
      // Receipts only arrive on a bound session.
      session().catch(() => {});
    },

    onInbound(listener) {
      inboundListener = listener;
      session().catch(() => {});
    },

    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      const s = await bound?.catch(() => undefined);
      bound = undefined;
      current = undefined;
      if (!s || s.socket.destroyed) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => s.destroy(), 1000);
        s.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        if (!s.unbind({}, () => s.close())) s.destroy();
      });
    },
  };
}

/**
 * The carrier's submit rate: each caller waits for its turn, turns `1000 / perSecond` ms apart (a token
 * bucket of one token, domain/rate-limit.ts), so the carrier never sees more than its rate in a second.
 */
function createPacer(perSecond: number): () => Promise<void> {
  const buckets = new TokenBuckets({ capacity: 1, perMs: 1000 / perSecond });
  let turn = Promise.resolve();
  const wait = async (): Promise<void> => {
    for (;;) {
      const taken = buckets.take('submit', Date.now());
      if (taken.allowed) return;
      await new Promise((resolve) => setTimeout(resolve, taken.retryAfterMs));
    }
  };
  return () => {
    turn = turn.then(wait);
    return turn;
  };
}

/** A counting semaphore: at most `size` holders; the others wait in order. */
function createWindow(size: number) {
  let held = 0;
  const queue: Array<() => void> = [];
  return {
    enter(): Promise<void> {
      if (held < size) {
        held += 1;
        return Promise.resolve();
      }
      return new Promise((resolve) => queue.push(resolve));
    },
    leave(): void {
      const next = queue.shift();
      if (next) next();
      else held -= 1;
    },
  };
}

function messageText(value: DecodedMessage | Buffer | undefined): string {
  if (!value) return '';
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  return typeof value.message === 'string' ? value.message : value.message.toString('latin1');
}
