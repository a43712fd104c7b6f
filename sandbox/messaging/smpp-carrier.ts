import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import smpp, { type DecodedMessage, type Pdu, type PduFields, type Session } from 'smpp';
import {
  type ConcatenationInfo,
  countSegments,
  readConcatenationUdh,
} from '../../domain/messaging/segments.ts';
import { formatSmppReceipt } from '../../domain/messaging/smpp-receipt.ts';
import type { Logger } from '../../platform/logger.ts';

/**
 * A simulated SMSC speaking SMPP 3.4 over TCP. It behaves like a carrier as far as the gateway can
 * tell: binds are checked, submissions answered with a message id, and delivery receipts (deliver_sm)
 * sent afterwards, decided by the destination number:
 *   ...0000 → stat:UNDELIV err:001;  ...0001 → no receipt ever (lost);  anything else → stat:DELIVRD.
 * A handset can send an SMS to a number (sendMobileOriginated): a deliver_sm queued and retried as a
 * receipt is. A receipt goes to the session that submitted the message while it is bound (another client bound
 * with the same system_id, such as the bench's bare SMPP client, gets its own receipts only), otherwise
 * to any receiving session of the system_id. Receipts for a system_id with no receiving session are
 * kept and sent when one binds, and a receipt that is not acknowledged (session closed, or a non-zero
 * deliver_sm_resp) is sent again — what real SMSCs do, and what lets a worker stop while receipts are due.
 * A long message may come as one submit_sm with `message_payload` (refused, as some SMSCs do, with
 * ESME_RINVTLVSTREAM while `refuseMessagePayload` is set) or as parts, each a submit_sm of its own with a
 * concatenation UDH (esm_class UDHI) or the SAR TLVs: every part is answered and receipted on its own,
 * and the handset shows the text once, when all its parts have arrived (decision 0055).
 * While `holdSubmitResponses` is set, a submit_sm is accepted (the message reaches the handset) but its
 * submit_sm_resp is held back: SMPP's window where the carrier has the message and the gateway does not
 * know it yet. A response whose session closes first is never sent; the receipt follows all the same.
 */
export interface SubmittedSms {
  messageId: string;
  source: string;
  destination: string;
  text: string;
  dataCoding: number;
  at: Date;
  /** A part of a concatenated message: its reference, part count and number (1-based), and how it came. */
  concatenation?: ConcatenationInfo & { via: 'udh' | 'sar' };
}

export interface SandboxSmppCarrier {
  url: string;
  port: number;
  /** Every submit_sm accepted, in order (each part of a concatenated message on its own). */
  submitted: SubmittedSms[];
  /** The submit_sm accepted whose submit_sm_resp was held and never sent: their session closed first. */
  unanswered: SubmittedSms[];
  /**
   * What the handsets receive, in order: every message whole, a concatenated one once all its parts
   * arrived (with the first part's id, the parts' texts put together); a part sent again is not shown again.
   */
  handset: SubmittedSms[];
  /**
   * After accepting `after` more submit_sm, answers the next `count` with ESME_RTHROTTLED (a busy SMSC:
   * the gateway tries again later).
   */
  throttle(count: number, after?: number): void;
  /** While true, a submit_sm carrying `message_payload` is refused with ESME_RINVTLVSTREAM. */
  refuseMessagePayload(refused: boolean): void;
  /**
   * From now on message ids are a decimal counter starting at `next`, as an SMSC that restarted its
   * counter hands out ids it has handed out before (by default ids are random).
   */
  resetMessageIds(next?: number): void;
  /**
   * While true, submit_sm are accepted but their submit_sm_resp held back; false sends the held ones
   * (to sessions still open) and answers at once again.
   */
  holdSubmitResponses(held: boolean): void;
  /** While true, binds are refused (ESME_RBINDFAIL) and the sessions bound now are dropped: an outage. */
  refuseBinds(refused: boolean): void;
  /**
   * A handset sends an SMS to a number (decision 0087): a deliver_sm (esm_class 0, GSM 7-bit or UCS-2 as
   * the text needs) to a receiving session of the system_id, queued until one binds and sent again until
   * acknowledged, like a receipt. `repeat` sends it once more after it was acknowledged, as an SMSC does
   * whose deliver_sm_resp was lost.
   */
  sendMobileOriginated(sms: { from: string; to: string; text: string; repeat?: boolean }): void;
  stop(): Promise<void>;
}

export interface SmppCarrierOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  systemId: string;
  password: string;
  receiptDelayMs?: number;
  /** Wait before sending again a receipt the ESME answered with an error. */
  receiptRetryMs?: number;
  /** Silent unless given. */
  logger?: Logger;
  /** Refuse `message_payload` from the start (see SandboxSmppCarrier.refuseMessagePayload). */
  refuseMessagePayload?: boolean;
}

type BindMode = 'transceiver' | 'transmitter' | 'receiver';

interface Binding {
  systemId: string;
  mode: BindMode;
}

interface PendingReceipt {
  systemId: string;
  /** The session that submitted the message (a receipt): preferred while it is bound. */
  submitter?: Session;
  messageId: string;
  source: string;
  destination: string;
  text: string;
  messageState: number;
  attempts: number;
  /** A mobile-originated SMS instead of a receipt; `repeats` more copies follow its acknowledgement. */
  mobileOriginated?: { repeats: number };
}

const BIND_COMMANDS: Record<string, BindMode> = {
  bind_transceiver: 'transceiver',
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
};

const MESSAGE_STATE = { DELIVERED: 2, UNDELIVERABLE: 5 } as const;
const MAX_RECEIPT_ATTEMPTS = 10;
const ESM_CLASS_RECEIPT = 0x04;
const ESM_CLASS_UDHI = 0x40;
const DESTINATION = /^\+?\d{8,15}$/;

export async function startSmppCarrier(options: SmppCarrierOptions): Promise<SandboxSmppCarrier> {
  const host = options.host ?? '127.0.0.1';
  const receiptDelayMs = options.receiptDelayMs ?? 200;
  const receiptRetryMs = options.receiptRetryMs ?? 1000;
  const log = options.logger;
  const submitted: SubmittedSms[] = [];
  const unanswered: SubmittedSms[] = [];
  const handset: SubmittedSms[] = [];
  /** Parts of concatenated messages waiting for the rest, by sender, destination, reference and count. */
  const assembling = new Map<string, Map<number, SubmittedSms>>();
  const assembled = new Set<string>();
  let payloadRefused = options.refuseMessagePayload ?? false;
  let throttling = { after: 0, count: 0 };
  const bindings = new Map<Session, Binding>();
  /** Receipts waiting for a receiving session of their system_id. */
  const queued: PendingReceipt[] = [];
  /** Receipts sent and not yet acknowledged, per session. */
  const inFlight = new Map<Session, Set<PendingReceipt>>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  /** The next id of a counting SMSC (see resetMessageIds); undefined: random ids. */
  let nextMessageId: number | undefined;
  let bindsRefused = false;
  let responsesHeld = false;
  /** Held submit_sm_resp per session: `answer` sends it, `abandon` is what follows when it never can. */
  const heldResponses = new Map<Session, { sms: SubmittedSms; answer(): void; abandon(): void }[]>();

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, ms);
    timers.add(timer);
  };

  const receiverFor = (systemId: string, submitter: Session | undefined): Session | undefined => {
    const own = submitter && bindings.get(submitter);
    if (submitter && own && own.mode !== 'transmitter' && submitter.socket.writable) return submitter;
    for (const [session, binding] of bindings) {
      if (binding.systemId === systemId && binding.mode !== 'transmitter' && session.socket.writable) {
        return session;
      }
    }
    return undefined;
  };

  const deliverReceipt = (receipt: PendingReceipt) => {
    const session = receiverFor(receipt.systemId, receipt.submitter);
    if (!session) {
      queued.push(receipt);
      return;
    }
    const pending = inFlight.get(session) ?? new Set<PendingReceipt>();
    inFlight.set(session, pending);
    pending.add(receipt);
    receipt.attempts += 1;
    session.deliver_sm(
      receipt.mobileOriginated ? mobileOriginatedPdu(receipt) : receiptPdu(receipt, new Date()),
      (response) => {
        pending.delete(receipt);
        if (response.command_status === 0) {
          const mo = receipt.mobileOriginated;
          if (mo && mo.repeats > 0) {
            mo.repeats -= 1;
            later(receiptDelayMs, () => deliverReceipt(receipt));
          }
          return;
        }
        if (receipt.attempts >= MAX_RECEIPT_ATTEMPTS) {
          log?.warn({ messageId: receipt.messageId }, 'sandbox smsc: receipt refused too often, dropped');
          return;
        }
        later(receiptRetryMs, () => deliverReceipt(receipt));
      },
    );
  };

  const flushQueue = (systemId: string) => {
    const waiting = queued.filter((receipt) => receipt.systemId === systemId);
    for (const receipt of waiting) queued.splice(queued.indexOf(receipt), 1);
    for (const receipt of waiting) deliverReceipt(receipt);
  };

  const onSubmit = (session: Session, pdu: Pdu) => {
    const binding = bindings.get(session);
    if (!binding || binding.mode === 'receiver') {
      session.send(pdu.response({ command_status: smpp.errors.ESME_RINVBNDSTS }));
      return;
    }
    const destination = pdu.destination_addr ?? '';
    if (!DESTINATION.test(destination)) {
      session.send(pdu.response({ command_status: smpp.errors.ESME_RINVDSTADR }));
      return;
    }
    const source = pdu.source_addr ?? '';
    if (!source) {
      session.send(pdu.response({ command_status: smpp.errors.ESME_RINVSRCADR }));
      return;
    }
    if (throttling.count > 0) {
      if (throttling.after > 0) throttling.after -= 1;
      else {
        throttling.count -= 1;
        session.send(pdu.response({ command_status: smpp.errors.ESME_RTHROTTLED }));
        return;
      }
    }
    if (payloadRefused && pdu.message_payload !== undefined) {
      session.send(pdu.response({ command_status: smpp.errors.ESME_RINVTLVSTREAM }));
      return;
    }
    const text = messageText(pdu.message_payload) || messageText(pdu.short_message);
    const concatenation = concatenationOf(pdu);
    if (concatenation === null) {
      session.send(pdu.response({ command_status: smpp.errors.ESME_RINVTLVSTREAM }));
      return;
    }
    const messageId = nextMessageId === undefined ? randomBytes(8).toString('hex') : String(nextMessageId++);
    const sms: SubmittedSms = {
      messageId,
      source,
      destination,
      text,
      dataCoding: pdu.data_coding ?? 0,
      at: new Date(),
      ...(concatenation ? { concatenation } : {}),
    };
    submitted.push(sms);
    toHandset(sms);

    // registered_delivery bits 0-1: 1 = receipt on success and failure, 2 = on failure only.
    const wanted = (pdu.registered_delivery ?? 0) & 0x03;
    const undeliverable = destination.endsWith('0000');
    const scheduleReceipt = () => {
      if (wanted === 0 || destination.endsWith('0001')) return;
      if (wanted === 2 && !undeliverable) return;
      later(receiptDelayMs, () =>
        deliverReceipt({
          systemId: binding.systemId,
          submitter: session,
          messageId,
          source,
          destination,
          text,
          messageState: undeliverable ? MESSAGE_STATE.UNDELIVERABLE : MESSAGE_STATE.DELIVERED,
          attempts: 0,
        }),
      );
    };
    const answer = () => {
      session.send(pdu.response({ message_id: messageId }));
      log?.debug({ messageId, destination }, 'sandbox smsc: submit_sm accepted');
      scheduleReceipt();
    };
    if (!responsesHeld) {
      answer();
      return;
    }
    const held = heldResponses.get(session) ?? [];
    heldResponses.set(session, held);
    // The carrier has the message even if the gateway never hears of it: its receipt still comes.
    held.push({ sms, answer, abandon: scheduleReceipt });
  };

  /** Shows a message on the handset; a part once the whole message has arrived. */
  const toHandset = (sms: SubmittedSms) => {
    const part = sms.concatenation;
    if (!part) {
      handset.push(sms);
      return;
    }
    const key = `${sms.source}|${sms.destination}|${part.reference}|${part.total}`;
    if (assembled.has(key)) return; // a part sent again (a retried submission): shown already
    const parts = assembling.get(key) ?? new Map<number, SubmittedSms>();
    assembling.set(key, parts);
    if (!parts.has(part.seq)) parts.set(part.seq, sms);
    if (parts.size < part.total) return;
    assembling.delete(key);
    assembled.add(key);
    const ordered = [...parts.entries()].sort(([a], [b]) => a - b).map(([, each]) => each);
    const first = ordered[0] ?? sms;
    const { concatenation: _, ...whole } = first;
    handset.push({ ...whole, text: ordered.map((each) => each.text).join(''), at: sms.at });
  };

  const server = smpp.createServer({}, (session) => {
    session.on('error', (error: Error) => log?.debug({ err: error }, 'sandbox smsc: session error'));
    session.on('close', () => {
      bindings.delete(session);
      for (const held of heldResponses.get(session) ?? []) {
        unanswered.push(held.sms);
        if (!stopped) held.abandon();
      }
      heldResponses.delete(session);
      const unacknowledged = inFlight.get(session);
      inFlight.delete(session);
      if (!stopped) for (const receipt of unacknowledged ?? []) deliverReceipt(receipt);
    });
    session.on('pdu', (pdu: Pdu) => {
      const mode = BIND_COMMANDS[pdu.command];
      if (mode) {
        if (bindings.has(session)) {
          session.send(pdu.response({ command_status: smpp.errors.ESME_RALYBND }));
        } else if (bindsRefused || pdu.system_id !== options.systemId || pdu.password !== options.password) {
          session.send(pdu.response({ command_status: smpp.errors.ESME_RBINDFAIL }));
        } else {
          bindings.set(session, { systemId: options.systemId, mode });
          session.send(pdu.response({ system_id: 'SANDBOXSMSC' }));
          if (mode !== 'transmitter') flushQueue(options.systemId);
        }
        return;
      }
      switch (pdu.command) {
        case 'submit_sm':
          onSubmit(session, pdu);
          return;
        case 'enquire_link':
          session.send(pdu.response());
          return;
        case 'unbind':
          bindings.delete(session);
          session.send(pdu.response(), () => session.close());
          return;
        case 'unknown':
          session.send(pdu.response()); // generic_nack ESME_RINVCMDID
          return;
        default:
          // Responses (deliver_sm_resp, unbind_resp...) are matched by node-smpp's callbacks.
          if (!pdu.isResponse()) session.send(pdu.response({ command_status: smpp.errors.ESME_RINVCMDID }));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 2775, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log?.info({ port }, 'sandbox smsc listening');

  return {
    url: `smpp://${host}:${port}`,
    port,
    submitted,
    unanswered,
    handset,
    throttle(count, after = 0) {
      throttling = { after, count };
    },
    refuseMessagePayload(refused) {
      payloadRefused = refused;
    },
    resetMessageIds(next = 1) {
      nextMessageId = next;
    },
    holdSubmitResponses(held) {
      responsesHeld = held;
      if (held) return;
      for (const [session, responses] of heldResponses) {
        heldResponses.delete(session);
        for (const response of responses) response.answer();
      }
    },
    sendMobileOriginated(sms) {
      deliverReceipt({
        systemId: options.systemId,
        messageId: randomBytes(8).toString('hex'),
        source: sms.from.replace(/^\+/, ''),
        destination: sms.to.replace(/^\+/, ''),
        text: sms.text,
        messageState: 0,
        attempts: 0,
        mobileOriginated: { repeats: sms.repeat ? 1 : 0 },
      });
    },
    refuseBinds(refused) {
      bindsRefused = refused;
      if (refused) for (const session of [...server.sessions]) session.destroy();
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of [...server.sessions]) session.destroy();
      await closed;
    },
  };
}

/** The deliver_sm of a delivery receipt (esm_class 0x04, the SMPP 3.4 Appendix B text). */
function receiptPdu(receipt: PendingReceipt, now: Date): PduFields {
  const delivered = receipt.messageState === MESSAGE_STATE.DELIVERED;
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: receipt.destination,
    destination_addr: receipt.source,
    esm_class: ESM_CLASS_RECEIPT,
    data_coding: 0,
    short_message: formatSmppReceipt({
      id: receipt.messageId,
      stat: delivered ? 'DELIVRD' : 'UNDELIV',
      err: delivered ? 0 : 1,
      submitDate: now,
      doneDate: now,
      // The receipt is GSM-7; keep the preview to characters every decoder agrees on.
      text: receipt.text.slice(0, 20).replace(/[^ -~]/g, '?'),
    }),
    receipted_message_id: receipt.messageId,
    message_state: receipt.messageState,
  };
}

/** The deliver_sm of an SMS a handset sent: from the handset to the number, GSM 7-bit or UCS-2. */
function mobileOriginatedPdu(sms: PendingReceipt): PduFields {
  const encoding = countSegments(sms.text).encoding;
  return {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: sms.source,
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: sms.destination,
    esm_class: 0,
    data_coding: encoding === 'GSM-7' ? 0x00 : 0x08,
    short_message: sms.text,
  };
}

function messageText(value: DecodedMessage | Buffer | undefined): string {
  if (!value) return '';
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  return typeof value.message === 'string' ? value.message : value.message.toString('latin1');
}

/**
 * The part a submit_sm carries: from its UDH (esm_class UDHI) or its SAR TLVs; undefined for a whole
 * message, null for SAR TLVs that do not make a part (an incomplete or impossible set).
 */
function concatenationOf(pdu: Pdu): (ConcatenationInfo & { via: 'udh' | 'sar' }) | undefined | null {
  const short = pdu.short_message;
  if (((pdu.esm_class ?? 0) & ESM_CLASS_UDHI) !== 0 && short && !Buffer.isBuffer(short) && short.udh) {
    const ies = short.udh;
    const udh = Buffer.concat([Buffer.of(ies.reduce((length, ie) => length + ie.length, 0)), ...ies]);
    const part = readConcatenationUdh(udh);
    return part ? { ...part, via: 'udh' } : undefined;
  }
  const { sar_msg_ref_num: reference, sar_total_segments: total, sar_segment_seqnum: seq } = pdu;
  if (reference === undefined && total === undefined && seq === undefined) return undefined;
  if (reference === undefined || !total || !seq || seq > total) return null;
  return { reference, total, seq, via: 'sar' };
}
