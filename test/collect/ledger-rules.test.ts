import { describe, expect, it } from 'vitest';
import {
  balancedPostings,
  balanceOf,
  billingSettlement,
  feeOf,
  imbalanceOf,
  type LedgerObligation,
  type Posting,
  payoutRelease,
  payoutReservation,
  providerAccountId,
  providerTransfer,
  settlementPostings,
} from '../../domain/collect/ledger.ts';
import type { SettlementSource } from '../../domain/collect/processes.ts';

/** The posting rules of the collect ledger (domain/collect/ledger.ts), without I/O. */

const obligation = (
  kind: LedgerObligation['kind'],
  extra: Partial<LedgerObligation> = {},
): LedgerObligation => ({
  idn: '1234567890',
  kind,
  merchantMin: 'D123456789',
  currency: 'BGN',
  amountMinor: 10_000,
  ...extra,
});
const desk: SettlementSource = { channel: 'cash_desk', officeId: '000123', operatorId: 'op1', receipt: 'R1' };
const statement: SettlementSource = { channel: 'bank_statement', statementId: 'st_1', entryRef: 'E1' };
const card: SettlementSource = { channel: 'card', acquirer: 'sandbox-acquirer', authorisationId: 'au_1' };

/** Postings as `account: amount`, for readable expectations. */
const lines = (postings: readonly Posting[]) =>
  Object.fromEntries(postings.map((line) => [`${line.account} ${line.currency}`, line.amountMinor]));

describe('settlement postings', () => {
  it('a bill paid at a desk: desk cash in, merchant credited less the fee', () => {
    const posted = settlementPostings(obligation('office_bill'), 10_000, desk, 150);
    expect(posted.key).toBe('settlement:1234567890');
    expect(lines(posted.postings)).toEqual({
      'desk_cash:000123 BGN': 10_000,
      'merchant:D123456789 BGN': -9_850,
      'fees BGN': -150,
    });
  });

  it('without a fee the fee line is left out', () => {
    expect(lines(settlementPostings(obligation('deposit_slip'), 10_000, statement, 0).postings)).toEqual({
      'bank_settlement BGN': 10_000,
      'merchant:D123456789 BGN': -10_000,
    });
  });

  it('a finalized hold posts what was captured, from the acquirer', () => {
    expect(lines(settlementPostings(obligation('preauth'), 4_000, card, 0).postings)).toEqual({
      'acquirer:sandbox-acquirer BGN': 4_000,
      'merchant:D123456789 BGN': -4_000,
    });
  });

  it('a collected cash payout empties payouts owed into the desk, the fee is the merchant’s', () => {
    expect(lines(settlementPostings(obligation('payout_office'), 10_000, desk, 100).postings)).toEqual({
      'payouts_owed BGN': 10_000,
      'desk_cash:000123 BGN': -10_000,
      'merchant:D123456789 BGN': 100,
      'fees BGN': -100,
    });
  });

  it('a payout funded by a provider account pays no fee', () => {
    const funded = obligation('payout_office', { fundedBy: 'KIN:42' });
    expect(lines(settlementPostings(funded, 10_000, desk, 100).postings)).toEqual({
      'payouts_owed BGN': 10_000,
      'desk_cash:000123 BGN': -10_000,
    });
  });

  it('a send debits the merchant and credits the provider account', () => {
    const source: SettlementSource = { channel: 'provider_account', account: 'KIN:42' };
    expect(lines(settlementPostings(obligation('payout_provider'), 2_500, source, 200).postings)).toEqual({
      'merchant:D123456789 BGN': 2_550,
      'provider:KIN:42 BGN': -2_500,
      'fees BGN': -50,
    });
  });

  it('a billing IDN paid at a desk posts like a bill, under its TID', () => {
    const payment = {
      tid: 'T1',
      idn: '9700000001',
      merchantMin: 'D123456789',
      currency: 'BGN',
      amountMinor: 2_500,
    };
    const posted = billingSettlement(payment, desk, 100);
    expect(posted.key).toBe('billing:T1');
    expect(lines(posted.postings)).toEqual({
      'desk_cash:000123 BGN': 2_500,
      'merchant:D123456789 BGN': -2_475,
      'fees BGN': -25,
    });
  });

  it('refuses a channel the kind is never settled through, and nothing paid', () => {
    expect(() => settlementPostings(obligation('online_payment'), 100, desk, 0)).toThrow(
      /not settled through/,
    );
    expect(() => settlementPostings(obligation('payout_office'), 100, statement, 0)).toThrow(/not settled/);
    expect(() => settlementPostings(obligation('office_bill'), 0, desk, 0)).toThrow(/nothing was paid/);
  });

  it('every rule balances per currency', () => {
    const kinds = ['office_bill', 'deposit_slip', 'bank_transfer'] as const;
    for (const kind of kinds) {
      for (const source of [desk, statement]) {
        expect(
          imbalanceOf(settlementPostings(obligation(kind, { currency: 'EUR' }), 999, source, 333).postings)
            .size,
        ).toBe(0);
      }
    }
  });
});

describe('payout reservations', () => {
  it('reserves from the merchant and the release gives back exactly that', () => {
    const reserved = payoutReservation(obligation('payout_office'));
    expect(reserved.key).toBe('payout-reserved:1234567890');
    expect(lines(reserved.postings)).toEqual({
      'merchant:D123456789 BGN': 10_000,
      'payouts_owed BGN': -10_000,
    });
    const released = payoutRelease('1234567890', reserved.postings);
    expect(released.key).toBe('payout-released:1234567890');
    expect(lines(released.postings)).toEqual({
      'merchant:D123456789 BGN': -10_000,
      'payouts_owed BGN': 10_000,
    });
  });

  it('a provider-funded payout reserves from the provider account', () => {
    expect(
      lines(payoutReservation(obligation('payout_office', { fundedBy: 'GSM:359888000111' })).postings),
    ).toEqual({
      'provider:GSM:359888000111 BGN': 10_000,
      'payouts_owed BGN': -10_000,
    });
  });

  it('only a cash payout reserves', () => {
    expect(() => payoutReservation(obligation('payout_provider'))).toThrow(/reserves nothing/);
  });
});

describe('provider accounts', () => {
  it('ids are one per person however the recipient was written', () => {
    expect(providerAccountId('EMAIL', ' Ana@Example.COM ')).toBe('EMAIL:ana@example.com');
    expect(providerAccountId('GSM', '+359888000111')).toBe(providerAccountId('GSM', '359888000111'));
    expect(providerAccountId('KIN', '1234567')).toBe('KIN:1234567');
  });

  it('a transfer moves between two accounts, never to itself', () => {
    expect(lines(providerTransfer('t1', 'KIN:1', 'KIN:2', 'EUR', 700).postings)).toEqual({
      'provider:KIN:1 EUR': 700,
      'provider:KIN:2 EUR': -700,
    });
    expect(() => providerTransfer('t2', 'KIN:1', 'KIN:1', 'EUR', 700)).toThrow();
    expect(() => providerTransfer('t3', 'KIN:1', 'KIN:2', 'EUR', 0)).toThrow();
  });
});

describe('amounts and balances', () => {
  it('the fee is basis points rounded half up', () => {
    expect(feeOf(10_000, 0)).toBe(0);
    expect(feeOf(10_000, 150)).toBe(150);
    expect(feeOf(33, 150)).toBe(0); // 0.495
    expect(feeOf(34, 150)).toBe(1); // 0.51
    expect(feeOf(100, 50)).toBe(1); // 0.5 → up
    expect(() => feeOf(100, 10_001)).toThrow();
  });

  it('refuses unbalanced or fractional postings', () => {
    expect(() => balancedPostings([{ account: 'fees', currency: 'BGN', amountMinor: 1 }])).toThrow(
      /unbalanced/,
    );
    expect(() =>
      balancedPostings([
        { account: 'fees', currency: 'BGN', amountMinor: 1 },
        { account: 'merchant:D1', currency: 'EUR', amountMinor: -1 },
      ]),
    ).toThrow(/unbalanced/);
    expect(() =>
      balancedPostings([
        { account: 'fees', currency: 'BGN', amountMinor: 0.5 },
        { account: 'merchant:D1', currency: 'BGN', amountMinor: -0.5 },
      ]),
    ).toThrow(/whole/);
  });

  it('shows liabilities and assets on their normal side', () => {
    expect(balanceOf('merchant:D123456789', -500)).toBe(500);
    expect(balanceOf('provider:KIN:1', 0)).toBe(0);
    expect(balanceOf('desk_cash:000123', 500)).toBe(500);
    expect(balanceOf('acquirer:sandbox-acquirer', 500)).toBe(500);
  });
});
