/**
 * A sandbox bank's ledger of payments: the balance of each of its accounts (per IBAN, in minor units)
 * and every debit booked, idempotent by the bank's payment id. It is the witness of the payment tests
 * ("one debit"), readable in process (`bank.ledger`) and over HTTP (`GET /{code}/sandbox/ledger/{iban}`).
 *
 * Tests also tell the bank how to treat payments from a given debtor IBAN (`setBehaviour`), so every
 * failure path can be reached: `reject` (the initiation answers 400 PAYMENT_FAILED / a bulk entry is
 * RJCT), `timeout` (the bank holds the request and never answers in time), `slow` (answers after
 * `delayMs`), `insufficient` (the debit is refused at execution: RJCT with reason AM04).
 */

export type PaymentBehaviour =
  | { kind: 'normal' }
  | { kind: 'reject' }
  | { kind: 'timeout' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'insufficient' };

export interface LedgerDebit {
  paymentId: string;
  iban: string;
  amountMinor: number;
  currency: string;
  bookedAt: Date;
  /** Balance after the debit. */
  balanceMinor: number;
}

export type DebitOutcome =
  | { booked: true; debit: LedgerDebit; repeated: boolean }
  | { booked: false; reason: 'insufficient_funds' | 'currency_mismatch' | 'unknown_account' };

export interface LedgerAccount {
  iban: string;
  currency: string;
  balanceMinor: number;
}

export class PaymentLedger {
  private readonly accounts = new Map<string, LedgerAccount>();
  private readonly debitsByPayment = new Map<string, LedgerDebit>();
  private readonly behaviours = new Map<string, PaymentBehaviour>();

  constructor(
    /** The opening balance of an account the ledger meets first (null: not an account of this bank). */
    private readonly openingOf: (iban: string) => { currency: string; balanceMinor: number } | null,
  ) {}

  /** The account's ledger entry, opened on first use; undefined when the bank holds no such IBAN. */
  account(iban: string): LedgerAccount | undefined {
    let account = this.accounts.get(iban);
    if (!account) {
      const opening = this.openingOf(iban);
      if (!opening) return undefined;
      account = { iban, ...opening };
      this.accounts.set(iban, account);
    }
    return account;
  }

  balanceOf(iban: string): number | undefined {
    return this.account(iban)?.balanceMinor;
  }

  /** Sets an account's balance (tests: "an account with 10.00 on it"). */
  setBalance(iban: string, balanceMinor: number): void {
    const account = this.account(iban);
    if (!account) throw new Error(`${iban} is not an account of this bank`);
    account.balanceMinor = balanceMinor;
  }

  /**
   * Books a debit once per paymentId: a repeated call answers the first booking (`repeated: true`) and
   * moves no money. Refused (no booking) when the funds or currency do not match.
   */
  debit(input: { iban: string; amountMinor: number; currency: string; paymentId: string }): DebitOutcome {
    const earlier = this.debitsByPayment.get(input.paymentId);
    if (earlier) return { booked: true, debit: earlier, repeated: true };
    const account = this.account(input.iban);
    if (!account) return { booked: false, reason: 'unknown_account' };
    if (account.currency !== input.currency) return { booked: false, reason: 'currency_mismatch' };
    if (this.behaviourOf(input.iban).kind === 'insufficient' || account.balanceMinor < input.amountMinor)
      return { booked: false, reason: 'insufficient_funds' };
    account.balanceMinor -= input.amountMinor;
    const debit: LedgerDebit = {
      paymentId: input.paymentId,
      iban: input.iban,
      amountMinor: input.amountMinor,
      currency: input.currency,
      bookedAt: new Date(),
      balanceMinor: account.balanceMinor,
    };
    this.debitsByPayment.set(input.paymentId, debit);
    return { booked: true, debit, repeated: false };
  }

  /** Debits of an account (all accounts when no IBAN is given), oldest first. */
  debits(iban?: string): LedgerDebit[] {
    return [...this.debitsByPayment.values()].filter((debit) => iban === undefined || debit.iban === iban);
  }

  debitOf(paymentId: string): LedgerDebit | undefined {
    return this.debitsByPayment.get(paymentId);
  }

  setBehaviour(iban: string, behaviour: PaymentBehaviour): void {
    if (behaviour.kind === 'normal') this.behaviours.delete(iban);
    else this.behaviours.set(iban, behaviour);
  }

  behaviourOf(iban: string): PaymentBehaviour {
    return this.behaviours.get(iban) ?? { kind: 'normal' };
  }

  /**
   * What a route does before answering a request about payments from `iban`: waits `delayMs` (slow), or
   * far longer than any client waits (timeout; `abort` ends the wait when the server stops). Answers
   * whether the request must be rejected.
   */
  async apply(iban: string, abort?: AbortSignal): Promise<'reject' | 'proceed'> {
    const behaviour = this.behaviourOf(iban);
    if (behaviour.kind === 'reject') return 'reject';
    const waitMs = behaviour.kind === 'slow' ? behaviour.delayMs : behaviour.kind === 'timeout' ? 600_000 : 0;
    if (waitMs > 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        abort?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    return 'proceed';
  }
}
