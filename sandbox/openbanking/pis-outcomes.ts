import { createHash, timingSafeEqual } from 'node:crypto';
import type { SandboxBank } from './bank.ts';
import { bookedTransaction } from './catalogue.ts';
import type { SandboxAuthorisation, SandboxPayment } from './pis-records.ts';

/**
 * What ends a payment's SCA at a sandbox bank, whichever page or endpoint the PSU or the TPP used: the
 * decision, the execution against the ledger, the cancellation.
 */

export const sha256 = (text: string) => createHash('sha256').update(text).digest();
export const sameDigest = (digest: Buffer | undefined, text: string) =>
  digest !== undefined && timingSafeEqual(digest, sha256(text));

/** Executes an authorised payment against the ledger: ACSC, or RJCT when it cannot be booked. */
export function executePayment(bank: SandboxBank, payment: SandboxPayment): void {
  if (payment.transactionStatus !== 'RCVD' && payment.transactionStatus !== 'ACTC') return;
  const outcome = bank.ledger.debit({
    iban: payment.debtor.iban,
    amountMinor: payment.amountMinor,
    currency: payment.request.instructedAmount.currency,
    paymentId: payment.paymentId,
  });
  if (!outcome.booked) {
    payment.transactionStatus = 'RJCT';
    payment.statusReason = outcome.reason === 'insufficient_funds' ? 'AM04' : 'AC01';
    return;
  }
  payment.transactionStatus = 'ACSC';
  // The debit shows in the account's transactions too (AIS reads see the payment).
  if (!outcome.repeated)
    payment.debtor.added.unshift(
      bookedTransaction(payment.debtor, {
        amount: `-${payment.request.instructedAmount.amount}`,
        counterpartyName: payment.request.creditorName,
        remittanceInformation:
          payment.request.remittanceInformationUnstructured ?? `Payment ${payment.paymentId}`,
      }),
    );
}

/** The payment cancelled at the bank (CANC): its open authorisations fail. */
export function cancelPayment(payment: SandboxPayment): void {
  payment.transactionStatus = 'CANC';
  for (const open of payment.authorisations.values())
    if (open.scaStatus !== 'finalised' && open.scaStatus !== 'failed') open.scaStatus = 'failed';
}

export function decide(
  bank: SandboxBank,
  payment: SandboxPayment,
  auth: SandboxAuthorisation,
  approved: boolean,
) {
  auth.scaStatus = approved ? 'finalised' : 'failed';
  auth.sessionDigest = undefined;
  if (approved) executePayment(bank, payment);
  else if (payment.transactionStatus === 'RCVD') {
    payment.transactionStatus = 'RJCT';
    payment.statusReason = 'the PSU did not authorise the payment';
  }
}

export const openAuthorisation = (payment: SandboxPayment) =>
  [...payment.authorisations.values()].find(
    (auth) => auth.scaStatus !== 'finalised' && auth.scaStatus !== 'failed',
  );
