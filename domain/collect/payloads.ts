import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { parseExpTime } from '../epay-time.ts';
import { amountProblem, parseAmountMinor } from './amount.ts';
import { badField, CollectProtocolError, missingField } from './errors.ts';
import type { Packet } from './packet.ts';

/**
 * The payload models: what each operation's decoded ENCODED packet must hold. Keys are ePay's
 * (upper case); unknown keys are ignored; an empty value counts as absent. Parsing answers the first
 * problem as MISSING_FIELD or BAD_FIELD naming the field. Pure (no I/O), safe in workflow code.
 * docs/collect.md has a table of every model.
 */

export const currencies = ['BGN', 'EUR', 'USD'] as const;
export type Currency = (typeof currencies)[number];
/** ePay's default when a packet has no CURRENCY line. */
export const DEFAULT_CURRENCY: Currency = 'BGN';

export const MIN_TEXT = /^D\d{9}$/;
export const IDN_TEXT = /^\d{10}$/;

const text = (pattern: RegExp, message: string) => z.string().regex(pattern, message);

const min = text(MIN_TEXT, 'must be D followed by 9 digits');
const invoice = text(/^[0-9A-Za-z._-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores');
const idn = text(IDN_TEXT, 'must be the 10-digit IDN');
/** A positive amount; `zero`: `0` (`0.00`) too, the model that takes it says when (SAVECARD=1). */
const amountOf = (zero: boolean) =>
  z.string().transform((value, ctx) => {
    if (zero && /^0{1,9}(\.0{1,2})?$/.test(value)) return 0;
    const problem = amountProblem(value);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return parseAmountMinor(value) as number;
  });
const amount = amountOf(false);
const currency = z
  .enum(currencies, { error: `must be one of ${currencies.join(', ')}` })
  .default(DEFAULT_CURRENCY);
const expTime = z.string().transform((value, ctx) => {
  const instant = parseExpTime(value);
  if (!instant) {
    ctx.addIssue({ code: 'custom', message: 'must be a real time as DD.MM.YYYY[ hh:mm[:ss]]' });
    return z.NEVER;
  }
  return instant;
});
const freeText = (max: number) => z.string().max(max, `at most ${max} characters`);
const encoding = z.string().optional();
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const personName = text(/^[\p{L}][\p{L} .'-]{1,99}$/u, 'must be a name of 2-100 letters');

/** Fields every registration shares. */
const registration = {
  MIN: min,
  INVOICE: invoice,
  AMOUNT: amount,
  CURRENCY: currency,
  EXP_TIME: expTime.optional(),
  DESCR: freeText(100).optional(),
  ENCODING: encoding,
};

/** The terms every registering payload carries (the obligation's invoice, amount, currency, expiry). */
export interface ObligationTerms {
  min: string;
  invoice: string;
  amountMinor: number;
  currency: Currency;
  /** When absent the gateway applies the configured default expiry of the operation. */
  expTime: Date | undefined;
  descr: string | undefined;
}

const registrationModel = (p: {
  MIN: string;
  INVOICE: string;
  AMOUNT: number;
  CURRENCY: Currency;
  EXP_TIME?: Date | undefined;
  DESCR?: string | undefined;
}): ObligationTerms => ({
  min: p.MIN,
  invoice: p.INVOICE,
  amountMinor: p.AMOUNT,
  currency: p.CURRENCY,
  expTime: p.EXP_TIME,
  descr: p.DESCR,
});

/** A saved card's token, as the gateway gives it to the merchant (decision 0045). */
export const CARD_TOKEN_TEXT = /^ctk_[0-9a-f]{24}$/;
const cardToken = text(CARD_TOKEN_TEXT, 'must be a saved card token (ctk_ and 24 hex digits)');

/**
 * POST / PAGE=credit_paydirect (card page). URL_OK / URL_CANCEL count only here (form fields are ignored).
 * SAVECARD=1 (decision 0045): the card is saved when the payment is approved, and AMOUNT=0 is allowed
 * (a card verification: nothing is paid, the obligation ends SAVED).
 */
export const OnlinePaymentPayload = z
  .object({
    ...registration,
    AMOUNT: amountOf(true),
    SAVECARD: z.enum(['0', '1'], { error: 'must be 1 (save the card) or 0' }).optional(),
    URL_OK: httpUrl.optional(),
    URL_CANCEL: httpUrl.optional(),
  })
  .superRefine((p, ctx) => {
    if (p.AMOUNT === 0 && p.SAVECARD !== '1') {
      ctx.addIssue({
        code: 'custom',
        path: ['AMOUNT'],
        message: 'must be greater than zero (0 only with SAVECARD=1, a card verification)',
      });
    }
  })
  .transform((p) => ({
    ...registrationModel(p),
    urlOk: p.URL_OK,
    urlCancel: p.URL_CANCEL,
    saveCard: p.SAVECARD === '1',
  }));

/** GET /office/reg_bill.cgi: an obligation payable at an office or ATM with its 10-digit IDN. */
export const OfficeBillPayload = z.object(registration).transform(registrationModel);

/**
 * POST /v3main/ with PHASE=REGISTER (or the same packet posted to the card page with
 * PAGE=credit_preauth): a hold of AMOUNT, made when the customer's card authorises it on the card page,
 * until finalized, reversed or EXP_TIME. URL_OK / URL_CANCEL: where the card page returns the customer.
 */
export const PreauthRegisterPayload = z
  .object({
    ...registration,
    PHASE: z.literal('REGISTER'),
    URL_OK: httpUrl.optional(),
    URL_CANCEL: httpUrl.optional(),
  })
  .transform((p) => ({ ...registrationModel(p), urlOk: p.URL_OK, urlCancel: p.URL_CANCEL }));

/** POST /v3main/ with PHASE=FINALIZE: take AMOUNT (at most the held amount) of the hold IDN. */
export const PreauthFinalizePayload = z
  .object({ MIN: min, PHASE: z.literal('FINALIZE'), IDN: idn, AMOUNT: amount, ENCODING: encoding })
  .transform((p) => ({ min: p.MIN, idn: p.IDN, amountMinor: p.AMOUNT }));

/** POST /v3main/ with PHASE=REVERSE: release the hold IDN. */
export const PreauthReversePayload = z
  .object({ MIN: min, PHASE: z.literal('REVERSE'), IDN: idn, ENCODING: encoding })
  .transform((p) => ({ min: p.MIN, idn: p.IDN }));

export const preauthPhases = ['REGISTER', 'FINALIZE', 'REVERSE'] as const;
export type PreauthPhase = (typeof preauthPhases)[number];

/** GET /v3main: move the expiry of an open obligation, hold or payout. */
export const ChangeExpiryPayload = z
  .object({ MIN: min, IDN: idn, EXP_TIME: expTime, ENCODING: encoding })
  .transform((p) => ({ min: p.MIN, idn: p.IDN, expTime: p.EXP_TIME }));

/** GET /send/send_vnbel.cgi: a bank transfer order to IBAN (beneficiary NAME, reason DESCR). */
export const BankTransferPayload = z
  .object({
    ...registration,
    IBAN: z
      .string()
      .transform((value) => electronicFormatIBAN(value) ?? value)
      .refine((value) => isValidIBAN(value), 'must be a valid IBAN'),
    BIC: z
      .string()
      .refine((value) => isValidBIC(value), 'must be a valid BIC')
      .optional(),
    NAME: freeText(70),
    DESCR: freeText(70).optional(),
  })
  .transform((p) => ({
    ...registrationModel(p),
    iban: p.IBAN,
    bic: p.BIC,
    beneficiaryName: p.NAME,
  }));

/** GET /office/reg_vnbel.cgi: a deposit-slip payment request; the payer quotes IDN on the slip. */
export const DepositSlipPayload = z
  .object({ ...registration, NAME: freeText(70).optional() })
  .transform((p) => ({ ...registrationModel(p), payerName: p.NAME }));

/** GET /office/send.cgi: cash collectable at an office by the named recipient until EXP_TIME. */
export const MoneySendOfficePayload = z
  .object({
    ...registration,
    RCPT_NAME: personName,
    RCPT_ID: text(/^[0-9A-Za-z]{5,20}$/, 'must be the personal or document number, 5-20 letters or digits'),
    RCPT_PHONE: text(/^\+?\d{6,15}$/, 'must be a phone number').optional(),
  })
  .transform((p) => ({
    ...registrationModel(p),
    recipientName: p.RCPT_NAME,
    recipientId: p.RCPT_ID,
    recipientPhone: p.RCPT_PHONE,
  }));

export const providerRecipientTypes = ['KIN', 'EMAIL', 'GSM'] as const;

/** GET /send/send.cgi: money to an account with the provider (by KIN, e-mail or GSM number). */
export const MoneySendProviderPayload = z
  .object({
    ...registration,
    RCPT: z.string().max(100, 'at most 100 characters'),
    RCPT_TYPE: z.enum(providerRecipientTypes, {
      error: `must be one of ${providerRecipientTypes.join(', ')}`,
    }),
  })
  .superRefine((p, ctx) => {
    const valid =
      p.RCPT_TYPE === 'KIN'
        ? /^\d{1,20}$/.test(p.RCPT)
        : p.RCPT_TYPE === 'EMAIL'
          ? z.email().safeParse(p.RCPT).success
          : /^\+?\d{6,15}$/.test(p.RCPT);
    if (!valid) ctx.addIssue({ code: 'custom', path: ['RCPT'], message: `is not a valid ${p.RCPT_TYPE}` });
  })
  .transform((p) => ({ ...registrationModel(p), recipient: p.RCPT, recipientType: p.RCPT_TYPE }));

/**
 * GET /card/charge.cgi (decision 0045): charge AMOUNT to the merchant's saved card CARD_TOKEN, once per
 * INVOICE, without the cardholder (a merchant-initiated transaction).
 */
export const CardChargePayload = z
  .object({
    MIN: min,
    INVOICE: invoice,
    AMOUNT: amount,
    CURRENCY: currency,
    DESCR: freeText(100).optional(),
    CARD_TOKEN: cardToken,
    ENCODING: encoding,
  })
  .transform((p) => ({ ...registrationModel(p), cardToken: p.CARD_TOKEN }));

/** GET /card/forget.cgi (decision 0045): the saved card CARD_TOKEN can no longer be charged. */
export const CardForgetPayload = z
  .object({ MIN: min, CARD_TOKEN: cardToken, ENCODING: encoding })
  .transform((p) => ({ min: p.MIN, cardToken: p.CARD_TOKEN }));

export type OnlinePayment = z.output<typeof OnlinePaymentPayload>;
export type CardCharge = z.output<typeof CardChargePayload>;
export type CardForget = z.output<typeof CardForgetPayload>;
export type OfficeBill = z.output<typeof OfficeBillPayload>;
export type PreauthRegister = z.output<typeof PreauthRegisterPayload>;
export type PreauthFinalize = z.output<typeof PreauthFinalizePayload>;
export type PreauthReverse = z.output<typeof PreauthReversePayload>;
export type ChangeExpiry = z.output<typeof ChangeExpiryPayload>;
export type BankTransfer = z.output<typeof BankTransferPayload>;
export type DepositSlip = z.output<typeof DepositSlipPayload>;
export type MoneySendOffice = z.output<typeof MoneySendOfficePayload>;
export type MoneySendProvider = z.output<typeof MoneySendProviderPayload>;

/**
 * Parses a decoded packet with one of the models. Throws CollectProtocolError: MISSING_FIELD when the
 * first offending field is absent (or empty), BAD_FIELD otherwise.
 */
export function parsePayload<Schema extends z.ZodType>(schema: Schema, packet: Packet): z.output<Schema> {
  const present = Object.fromEntries(Object.entries(packet).filter(([, value]) => value !== ''));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? '(packet)');
  if (present[field] === undefined) throw missingField(field);
  throw badField(field, issue?.message ?? 'is not valid');
}

/** The PHASE of a /v3main/ packet, checked before the phase's model is applied. */
export function preauthPhaseOf(packet: Packet): PreauthPhase {
  const phase = packet.PHASE;
  if (!phase) throw missingField('PHASE');
  const upper = phase.toUpperCase();
  if (!(preauthPhases as readonly string[]).includes(upper)) {
    throw badField('PHASE', `must be one of ${preauthPhases.join(', ')}`);
  }
  return upper as PreauthPhase;
}

export { CollectProtocolError };
