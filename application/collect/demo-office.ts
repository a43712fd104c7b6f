import { randomUUID } from 'node:crypto';
import { sandboxDeskOperator } from '../../credentials/collect/desk-operators.ts';
import { recipientIdOf } from '../../credentials/collect/recipient-ids.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import {
  type CollectErrorCode,
  CollectProtocolError,
  collectErrorCodes,
} from '../../domain/collect/errors.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { BillingRefusal, lookUpIdn, payOutCash, takePayment } from './cash-desk.ts';
import { findObligation, type Obligation } from './obligation.ts';

/**
 * The sandbox demo office (office 000001, credentials/collect/desk-operators.ts): thin callers of the
 * cash desk that play a desk for the ePay demo endpoints (pay_bill.cgi, pay_money_send.cgi). Desk
 * refusals become the protocol's errors; a billing system's refusal stays a `BillingRefusal`, answered
 * with the merchant's code.
 */

/** What a billing system says is due on an IDN, or what was paid on it. */
export interface BillingDue {
  idn: string;
  merchantMin: string;
  amountMinor: number;
  tid: string | null;
  shortDesc: string | null;
  invoices: string | null;
}

export type DemoPayBillOutcome =
  | { type: 'obligation'; obligation: Obligation }
  | { type: 'billing'; status: 'DUE' | 'PAID'; due: BillingDue }
  | { type: 'status'; status: string; idn: string };

/** A refusal of the desk as the ePay text protocol's error (its code upper-cased). */
function protocolErrorOf(error: unknown): unknown {
  if (error instanceof Refusal && error.status < 500) {
    const code = error.code.toUpperCase();
    return code in collectErrorCodes
      ? new CollectProtocolError(code as CollectErrorCode, error.message)
      : new CollectProtocolError('NOT_FOUND', error.message);
  }
  return error;
}

/**
 * The demo desk pays a registered obligation, or checks it; an IDN that is no registered obligation is
 * an IDN of a merchant's billing system (CHECK asks its /pay/init, PAY also confirms at /pay/confirm).
 */
export async function demoPayBill(
  deps: UseCaseDeps,
  { action, idn }: { action: 'PAY' | 'CHECK'; idn: string },
): Promise<DemoPayBillOutcome> {
  const row = await findObligation(deps, { idn });
  if (row && action === 'CHECK') return { type: 'obligation', obligation: row };
  const operator = await sandboxDeskOperator(deps.db);
  try {
    if (!row) {
      if (action === 'CHECK') {
        const due = await lookUpIdn(deps, { operator, idn });
        if (due.type !== 'billing') return { type: 'status', status: due.status, idn };
        return {
          type: 'billing',
          status: 'DUE',
          due: {
            idn,
            merchantMin: due.merchantMin,
            amountMinor: due.amountMinor,
            tid: due.tid,
            shortDesc: due.shortDesc,
            invoices: due.invoices,
          },
        };
      }
      const { receipt } = await takePayment(deps, { operator, idempotencyKey: randomUUID(), idn });
      return {
        type: 'billing',
        status: 'PAID',
        due: {
          idn,
          merchantMin: receipt.merchantMin,
          amountMinor: receipt.amountMinor,
          tid: receipt.tid,
          shortDesc: receipt.description,
          invoices: receipt.invoice,
        },
      };
    }
    await takePayment(deps, { operator, idempotencyKey: randomUUID(), idn });
  } catch (error) {
    if (error instanceof BillingRefusal) throw error;
    throw protocolErrorOf(error);
  }
  return { type: 'obligation', obligation: (await findObligation(deps, { idn })) ?? row };
}

/**
 * The demo desk hands out a cash payout, playing a desk that has checked the recipient's document (it
 * presents the registered identity; a real desk types in what the document says).
 */
export async function demoPayOutCash(
  deps: UseCaseDeps,
  { sysCode }: { sysCode: string },
): Promise<Obligation> {
  const row = await findObligation(deps, { idn: sysCode });
  if (row?.kind !== 'payout_office') {
    throw new CollectProtocolError('NOT_FOUND', `no cash payout ${sysCode}`, 'SYS_CODE');
  }
  try {
    await payOutCash(deps, {
      operator: await sandboxDeskOperator(deps.db),
      idempotencyKey: randomUUID(),
      idn: sysCode,
      recipientId: recipientIdOf(collectSecretKey(deps.config), row) ?? '',
      recipientName: row.details.recipientName ?? '',
    });
  } catch (error) {
    const code = error instanceof Refusal ? error.code.toUpperCase() : '';
    if (error instanceof Refusal && code in collectErrorCodes) {
      throw new CollectProtocolError(code as CollectErrorCode, error.message);
    }
    throw error;
  }
  return (await findObligation(deps, { idn: sysCode })) ?? row;
}
