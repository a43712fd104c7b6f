/**
 * Inbound SMS (decision 0087): what a handset sent to a number (a mobile-originated message, MO), the
 * opt-out keywords it may be, and the names of its process. Pure: no I/O.
 */

/** An SMS a handset sent, as the carrier handed it over (a deliver_sm that is not a receipt). */
export interface InboundSms {
  /** The carrier it came from (SmsCarrier.identity). */
  carrier: string;
  /** The handset, as the carrier wrote it (E.164 digits, with or without +). */
  from: string;
  /** The number it was sent to, as the carrier wrote it. */
  to: string;
  /** Decoded from the deliver_sm's data_coding (GSM 7-bit, Latin-1 or UCS-2). */
  text: string;
}

export type OptOutKeyword = 'stop' | 'start';

/**
 * The whole message, case and surrounding spaces aside: these ask to stop, these to start again (the
 * CTIA / carriers' usual list, kept short). Anything else is an ordinary message.
 */
const KEYWORDS: Record<string, OptOutKeyword> = {
  STOP: 'stop',
  STOPALL: 'stop',
  UNSUBSCRIBE: 'stop',
  CANCEL: 'stop',
  END: 'stop',
  QUIT: 'stop',
  START: 'start',
  UNSTOP: 'start',
};

export const OPT_OUT_KEYWORDS = Object.freeze({ ...KEYWORDS });

/** 'stop', 'start' or null: the keyword the whole text is, if it is one. */
export function optOutKeywordOf(text: string): OptOutKeyword | null {
  return KEYWORDS[text.trim().toUpperCase()] ?? null;
}

/** The event an account receives for an inbound message. */
export const INBOUND_EVENT_TYPE = 'message.inbound';
