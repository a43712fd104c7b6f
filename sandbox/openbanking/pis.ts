import { randomInt, randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { minorOf } from '../../domain/openbanking/payments.ts';
import {
  PAYMENT_PRODUCTS,
  type PaymentInitiationRequest,
  type PaymentProduct,
  type ScaApproach,
} from '../../domain/openbanking/xs2a.ts';
import type { SandboxBank } from './bank.ts';
import { registerPisControls } from './pis-controls.ts';
import { cancelPayment, decide, sameDigest, sha256 } from './pis-outcomes.ts';
import type { SandboxAuthorisation, SandboxPayment } from './pis-records.ts';
import { registerCancellationScaPage, registerPaymentScaPage } from './pis-sca-pages.ts';
import type { SmsSender } from './sms-sender.ts';
import { tppError } from './tpp-errors.ts';

/**
 * Payment initiation at a sandbox bank (Berlin Group NextGenPSD2 1.3, single payments), under `/{code}/v1`:
 *
 *   POST /payments/{product}                                   initiate (RCVD); SCA approach by TPP-Redirect-Preferred
 *                                                              / TPP-Decoupled-Preferred (default: the bank's flow type)
 *   GET  /payments/{product}/{paymentId}[/status]              the payment / its transactionStatus
 *   POST /payments/{product}/{paymentId}/authorisations        start the SCA (embedded: the code goes by SMS)
 *   GET  /payments/{product}/{paymentId}/authorisations/{id}   scaStatus (the TPP polls it for decoupled SCA)
 *   PUT  /payments/{product}/{paymentId}/authorisations/{id}   { scaAuthenticationData }: the one-time code
 *
 * and the hosted SCA page of a payment at `/{code}/sca/payments/{paymentId}` (redirect approach, pis-sca-pages.ts). Once the
 * SCA is finalised the bank executes the payment against its ledger (payment-ledger.ts): ACSC, or RJCT
 * when the funds are missing. Test controls (no counterpart at a real bank; pis-controls.ts):
 *
 *   POST /{code}/sandbox/payments/{paymentId}/decoupled/{approve|deny}   the PSU answers in the bank's app
 *   POST /{code}/sandbox/payments/{paymentId}/expire-code                the sent one-time code expires now
 *   GET  /{code}/sandbox/ledger/{iban}                                   balance and debits of an account
 *   PUT  /{code}/sandbox/ledger/{iban}/behaviour                         { kind: normal|reject|timeout|slow|insufficient, delayMs }
 *   PUT  /{code}/sandbox/ledger/{iban}/balance                           { balanceMinor }
 */

export const OTP_MAX_ATTEMPTS = 3;

export interface PisOptions {
  /** Base of the SCA page links. */
  publicUrl: () => string;
  /** How one-time codes reach the PSU's phone; without it embedded SCA is refused. */
  sendSms?: SmsSender;
  /** How long a one-time code is valid (default 5 minutes). */
  otpTtlMs?: number;
  /** Ended when the server stops (ends the waits of `timeout` behaviours). */
  stopped: AbortSignal;
}

const ibanRef = z.object({
  iban: z.string().refine((iban) => isValidIBAN(iban), 'not a valid IBAN'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional(),
});
const paymentSchema = z.object({
  endToEndIdentification: z.string().max(35).optional(),
  debtorAccount: ibanRef,
  instructedAmount: z.object({
    currency: z.string().regex(/^[A-Z]{3}$/),
    amount: z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be a positive decimal'),
  }),
  creditorAccount: ibanRef,
  creditorName: z.string().min(1).max(70),
  remittanceInformationUnstructured: z.string().max(140).optional(),
  remittanceInformationStructured: z
    .object({
      reference: z.string().min(1).max(35),
      referenceType: z.string().max(35).optional(),
      referenceIssuer: z.string().max(35).optional(),
    })
    .optional(),
});

const isUrl = (value: string | undefined) => {
  try {
    return value !== undefined && /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The approach the TPP asked for; the bank's own flow type when it did not say. */
function approachOf(c: Context, bank: SandboxBank): ScaApproach {
  const redirect = c.req.header('tpp-redirect-preferred');
  const decoupled = c.req.header('tpp-decoupled-preferred');
  if (redirect === 'true') return 'REDIRECT';
  if (decoupled === 'true') return 'DECOUPLED';
  if (redirect === 'false') return 'EMBEDDED';
  return bank.definition.bankFlowType.toUpperCase() as ScaApproach;
}

export function registerPisRoutes(app: Hono, bank: SandboxBank, options: PisOptions): void {
  const base = `/${bank.definition.code}`;
  const v1 = `${base}/v1`;
  const otpTtlMs = options.otpTtlMs ?? 300_000;
  const paymentsPath = (product: string) => `${v1}/payments/${product}`;
  const authPath = (payment: SandboxPayment, auth: SandboxAuthorisation) =>
    `${paymentsPath(payment.product)}/${payment.paymentId}/authorisations/${auth.authorisationId}`;
  const scaPage = (payment: SandboxPayment) =>
    `${options.publicUrl()}${base}/sca/payments/${payment.paymentId}`;

  const productOf = (c: Context): PaymentProduct | Response => {
    const product = c.req.param('product') ?? '';
    return (PAYMENT_PRODUCTS as readonly string[]).includes(product)
      ? (product as PaymentProduct)
      : tppError(c, 'PRODUCT_UNKNOWN', `The payment product ${product} is not offered`);
  };
  const paymentOf = (c: Context): SandboxPayment | Response => {
    const product = productOf(c);
    if (product instanceof Response) return product;
    const payment = bank.payments.get(c.req.param('paymentId') ?? '');
    if (!payment || payment.product !== product)
      return tppError(c, 'RESOURCE_UNKNOWN', 'The payment is not known to the bank');
    return payment;
  };

  function newAuthorisation(payment: SandboxPayment): SandboxAuthorisation {
    const auth: SandboxAuthorisation = {
      authorisationId: randomUUID(),
      approach: payment.approach,
      scaStatus: 'received',
      otpAttempts: 0,
    };
    payment.authorisations.set(auth.authorisationId, auth);
    return auth;
  }

  app.post(`${v1}/payments/:product`, async (c) => {
    const product = productOf(c);
    if (product instanceof Response) return product;
    const parsed = paymentSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = issue.path.join('.');
      return tppError(c, 'FORMAT_ERROR', `${path || 'body'}: ${issue.message}`, path);
    }
    const request = parsed.data as PaymentInitiationRequest;
    const debtor = bank.accountByIban(request.debtorAccount.iban);
    if (!debtor)
      return tppError(c, 'FORMAT_ERROR', 'debtorAccount: not an account of this bank', 'debtorAccount');
    if (debtor.definition.currency !== request.instructedAmount.currency)
      return tppError(
        c,
        'FORMAT_ERROR',
        `instructedAmount.currency: the account holds ${debtor.definition.currency}`,
        'instructedAmount.currency',
      );
    const amountMinor = minorOf(request.instructedAmount.amount);
    if (amountMinor <= 0)
      return tppError(
        c,
        'FORMAT_ERROR',
        'instructedAmount.amount: must be positive',
        'instructedAmount.amount',
      );
    if ((await bank.ledger.apply(debtor.iban, options.stopped)) === 'reject')
      return tppError(c, 'PAYMENT_FAILED', 'The bank refuses payments from this account');

    const approach = approachOf(c, bank);
    const redirectUri = c.req.header('tpp-redirect-uri') ?? null;
    if (approach === 'REDIRECT' && !isUrl(redirectUri ?? undefined))
      return tppError(
        c,
        'FORMAT_ERROR',
        'TPP-Redirect-URI: required, an http(s) URL (redirect approach)',
        'TPP-Redirect-URI',
      );
    if (approach === 'EMBEDDED' && !options.sendSms)
      return tppError(
        c,
        'FORMAT_ERROR',
        'The bank offers no embedded SCA (no SMS carrier)',
        'TPP-Redirect-Preferred',
      );
    const nokRedirectUri = c.req.header('tpp-nok-redirect-uri') ?? redirectUri;
    const payment: SandboxPayment = {
      paymentId: randomUUID(),
      product,
      request,
      debtor,
      amountMinor,
      transactionStatus: 'RCVD',
      approach,
      redirectUri,
      nokRedirectUri,
      authorisations: new Map(),
      createdAt: new Date(),
      ...(c.req.header('psu-ip-address') ? { psuIpAddress: c.req.header('psu-ip-address') } : {}),
      ...(c.req.header('psu-user-agent') ? { psuUserAgent: c.req.header('psu-user-agent') } : {}),
    };
    bank.payments.set(payment.paymentId, payment);
    const self = `${paymentsPath(product)}/${payment.paymentId}`;
    // Redirect: the authorisation starts implicitly (unless the bank's scaStart is explicit); embedded
    // and decoupled: the TPP starts it.
    const links: Record<string, { href: string }> = {
      self: { href: self },
      status: { href: `${self}/status` },
    };
    if (approach === 'REDIRECT' && bank.definition.scaStart !== 'explicit') {
      const auth = newAuthorisation(payment);
      links.scaRedirect = { href: scaPage(payment) };
      links.scaStatus = { href: authPath(payment, auth) };
    } else {
      links.startAuthorisation = { href: `${self}/authorisations` };
    }
    c.header('Location', new URL(self, c.req.url).toString());
    c.header('ASPSP-SCA-Approach', approach);
    return c.json({ transactionStatus: 'RCVD', paymentId: payment.paymentId, _links: links }, 201);
  });

  app.get(`${v1}/payments/:product/:paymentId`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    return c.json({ ...payment.request, transactionStatus: payment.transactionStatus }, 200);
  });

  app.get(`${v1}/payments/:product/:paymentId/status`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    return c.json({ transactionStatus: payment.transactionStatus }, 200);
  });

  /**
   * Cancellation: a payment not yet authorised (RCVD) is cancelled at once (204, CANC; its open
   * authorisations fail); any other is past cancelling: 405 CANCELLATION_INVALID, as the schema says.
   */
  app.delete(`${v1}/payments/:product/:paymentId`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    if (payment.transactionStatus !== 'RCVD')
      return tppError(
        c,
        'CANCELLATION_INVALID',
        `The payment is ${payment.transactionStatus}; it can no longer be cancelled`,
      );
    if (bank.definition.cancellationSca) {
      // The bank wants the PSU to authorise the cancellation (decision 0061): 202 and a start link.
      const self = `${paymentsPath(payment.product)}/${payment.paymentId}`;
      payment.cancellations ??= new Map();
      return c.json(
        {
          transactionStatus: payment.transactionStatus,
          _links: {
            self: { href: self },
            status: { href: `${self}/status` },
            startAuthorisation: { href: `${self}/cancellation-authorisations` },
          },
        },
        202,
      );
    }
    cancelPayment(payment);
    return c.body(null, 204);
  });

  const cancellationPath = (payment: SandboxPayment, authorisationId: string) =>
    `${paymentsPath(payment.product)}/${payment.paymentId}/cancellation-authorisations/${authorisationId}`;

  app.get(`${v1}/payments/:product/:paymentId/cancellation-authorisations`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    return c.json({ authorisationIds: [...(payment.cancellations?.keys() ?? [])] }, 200);
  });

  /** The cancellation's authorisation (redirect approach): the bank's page to approve it. */
  app.post(`${v1}/payments/:product/:paymentId/cancellation-authorisations`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    if (!payment.cancellations)
      return tppError(c, 'STATUS_INVALID', 'No cancellation of this payment waits for an authorisation');
    if (payment.transactionStatus !== 'RCVD')
      return tppError(
        c,
        'CANCELLATION_INVALID',
        `The payment is ${payment.transactionStatus}; it can no longer be cancelled`,
      );
    const redirectUri = c.req.header('tpp-redirect-uri') ?? payment.redirectUri;
    if (!isUrl(redirectUri ?? undefined))
      return tppError(c, 'FORMAT_ERROR', 'TPP-Redirect-URI: required, an http(s) URL', 'TPP-Redirect-URI');
    const auth = {
      authorisationId: randomUUID(),
      approach: 'REDIRECT' as const,
      scaStatus: 'received' as const,
      otpAttempts: 0,
      redirectUri,
      nokRedirectUri: c.req.header('tpp-nok-redirect-uri') ?? redirectUri,
    };
    payment.cancellations.set(auth.authorisationId, auth);
    c.header('ASPSP-SCA-Approach', 'REDIRECT');
    return c.json(
      {
        scaStatus: auth.scaStatus,
        authorisationId: auth.authorisationId,
        _links: {
          scaRedirect: {
            href: `${options.publicUrl()}${base}/sca/payment-cancellations/${payment.paymentId}/${auth.authorisationId}`,
          },
          scaStatus: { href: cancellationPath(payment, auth.authorisationId) },
        },
      },
      201,
    );
  });

  app.get(`${v1}/payments/:product/:paymentId/cancellation-authorisations/:authorisationId`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    const auth = payment.cancellations?.get(c.req.param('authorisationId') ?? '');
    if (!auth) return tppError(c, 'RESOURCE_UNKNOWN', 'The authorisation is not known');
    return c.json({ scaStatus: auth.scaStatus }, 200);
  });

  app.get(`${v1}/payments/:product/:paymentId/authorisations`, (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    return c.json({ authorisationIds: [...payment.authorisations.keys()] }, 200);
  });

  app.post(`${v1}/payments/:product/:paymentId/authorisations`, async (c) => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    if (payment.transactionStatus !== 'RCVD')
      return tppError(
        c,
        'STATUS_INVALID',
        `The payment is ${payment.transactionStatus}; it needs no authorisation`,
      );
    // A new start replaces an open authorisation (a code sent earlier stops working).
    for (const open of payment.authorisations.values())
      if (open.scaStatus !== 'finalised' && open.scaStatus !== 'failed') open.scaStatus = 'failed';
    const auth = newAuthorisation(payment);
    const links = { scaStatus: { href: authPath(payment, auth) } };
    if (payment.approach === 'REDIRECT')
      return c.json(
        {
          scaStatus: auth.scaStatus,
          authorisationId: auth.authorisationId,
          _links: { ...links, scaRedirect: { href: scaPage(payment) } },
        },
        201,
      );
    const psu = bank.psus.get(payment.debtor.psuId)!;
    if (payment.approach === 'DECOUPLED') {
      auth.scaStatus = 'started';
      return c.json(
        {
          scaStatus: auth.scaStatus,
          authorisationId: auth.authorisationId,
          psuMessage: `Please confirm the payment in the ${bank.definition.name} app.`,
          _links: links,
        },
        201,
      );
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    auth.otpDigest = sha256(code);
    auth.otpExpiresAt = Date.now() + otpTtlMs;
    auth.scaStatus = 'scaMethodSelected';
    try {
      await options.sendSms!({
        to: psu.phone,
        from: bank.definition.bankCode,
        text: `${bank.definition.name}: your code for the payment of ${payment.request.instructedAmount.amount} ${payment.request.instructedAmount.currency} to ${payment.request.creditorName} is ${code}`,
      });
    } catch (error) {
      auth.scaStatus = 'failed';
      return tppError(c, 'SERVICE_UNAVAILABLE', `The code could not be sent: ${(error as Error).message}`);
    }
    return c.json(
      {
        scaStatus: auth.scaStatus,
        authorisationId: auth.authorisationId,
        chosenScaMethod: {
          authenticationType: 'SMS_OTP',
          authenticationMethodId: 'sms-otp',
          name: `SMS to ${psu.phone.slice(0, 4)}…${psu.phone.slice(-3)}`,
        },
        challengeData: {
          otpMaxLength: 6,
          otpFormat: 'integer',
          additionalInformation: `A code was sent to ${psu.phone.slice(0, 4)}…${psu.phone.slice(-3)}`,
        },
        _links: { ...links, authoriseTransaction: { href: authPath(payment, auth) } },
      },
      201,
    );
  });

  const authorisationOf = (
    c: Context,
  ): { payment: SandboxPayment; auth: SandboxAuthorisation } | Response => {
    const payment = paymentOf(c);
    if (payment instanceof Response) return payment;
    const auth = payment.authorisations.get(c.req.param('authorisationId') ?? '');
    return auth ? { payment, auth } : tppError(c, 'RESOURCE_UNKNOWN', 'The authorisation is not known');
  };

  app.get(`${v1}/payments/:product/:paymentId/authorisations/:authorisationId`, (c) => {
    const found = authorisationOf(c);
    if (found instanceof Response) return found;
    return c.json({ scaStatus: found.auth.scaStatus }, 200);
  });

  app.put(`${v1}/payments/:product/:paymentId/authorisations/:authorisationId`, async (c) => {
    const found = authorisationOf(c);
    if (found instanceof Response) return found;
    const { payment, auth } = found;
    const body = (await c.req.json().catch(() => undefined)) as
      | { scaAuthenticationData?: unknown }
      | undefined;
    const code = body?.scaAuthenticationData;
    if (typeof code !== 'string' || code.length === 0 || code.length > 16)
      return tppError(c, 'FORMAT_ERROR', 'scaAuthenticationData: required', 'scaAuthenticationData');
    if (auth.approach !== 'EMBEDDED' || !auth.otpDigest)
      return tppError(c, 'STATUS_INVALID', 'This authorisation takes no one-time code');
    if (auth.scaStatus === 'finalised') return tppError(c, 'STATUS_INVALID', 'The code was already used');
    if (auth.scaStatus === 'failed') return tppError(c, 'STATUS_INVALID', 'The authorisation has failed');
    if (Date.now() > (auth.otpExpiresAt ?? 0)) return tppError(c, 'RESOURCE_EXPIRED', 'The code has expired');
    if (!sameDigest(auth.otpDigest, code)) {
      auth.otpAttempts += 1;
      if (auth.otpAttempts >= OTP_MAX_ATTEMPTS) decide(bank, payment, auth, false);
      return tppError(
        c,
        'PSU_CREDENTIALS_INVALID',
        `The code is wrong; ${Math.max(0, OTP_MAX_ATTEMPTS - auth.otpAttempts)} attempts left`,
      );
    }
    decide(bank, payment, auth, true);
    return c.json(
      { scaStatus: auth.scaStatus, _links: { scaStatus: { href: authPath(payment, auth) } } },
      200,
    );
  });

  registerPisControls(app, bank);
  registerPaymentScaPage(app, bank);
  registerCancellationScaPage(app, bank);
}
