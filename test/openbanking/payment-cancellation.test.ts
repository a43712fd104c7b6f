import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createXs2aClient, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import type { PaymentInitiationRequest } from '../../domain/openbanking/xs2a.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import {
  ibanOf,
  SANDBOX_BANKS,
  type SandboxBanks,
  startSandboxBanks,
} from '../../sandbox/openbanking/index.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';

/**
 * Payment cancellation with its own SCA (decision 0061), as the connector meets it at the sandbox banks
 * over loopback: Bank R wants the PSU to authorise a cancellation (DELETE → 202 with
 * `startAuthorisation` → POST …/cancellation-authorisations → the bank's page), Bank A cancels a
 * payment not yet authorised at once (204), and a payment past cancelling is 405 CANCELLATION_INVALID.
 */

let banks: SandboxBanks;
beforeAll(async () => {
  banks = await startSandboxBanks({ weeklyMaintenance: false });
});
afterAll(async () => {
  await banks?.stop();
});

const CALLBACK = 'https://tpp.example/callback';
const client = (code: string) =>
  createXs2aClient({ baseUrl: `${banks.url}/${code}`, requestTimeoutMs: 5_000 });
const definition = (code: string) => SANDBOX_BANKS.find((bank) => bank.code === code)!;
const paymentFrom = (iban: string, currency: string): PaymentInitiationRequest => ({
  debtorAccount: { iban, currency },
  instructedAmount: { currency, amount: '3.00' },
  creditorAccount: { iban: 'BG80BNBG96611020345678' },
  creditorName: 'Sofia Water',
});
const PRODUCT = 'sepa-credit-transfers' as const;
const rita = { psuId: 'rita', password: 'sandbox-rita' };

async function paymentAtBankR() {
  const bank = client('bank-r');
  const initiated = await bank.initiatePayment(
    PRODUCT,
    paymentFrom(ibanOf(definition('bank-r'), '00000000001'), 'EUR'),
    {
      approach: 'REDIRECT',
      redirectUri: CALLBACK,
    },
  );
  expect(initiated.scaRedirectUrl).toContain('/bank-r/sca/payments/');
  return { bank, initiated };
}

describe('cancellation with its own SCA (Bank R)', () => {
  it('DELETE → 202 → the cancellation authorised on the bank’s page: CANC, no debit, the payment’s SCA closed', async () => {
    const { bank, initiated } = await paymentAtBankR();
    const cancellation = await bank.cancelPayment(PRODUCT, initiated.paymentId, { redirectUri: CALLBACK });
    if (cancellation.status !== 'authorisationNeeded') throw new Error('expected an authorisation');
    expect(cancellation.scaRedirectUrl).toContain('/bank-r/sca/payment-cancellations/');
    // Not cancelled before the PSU says so.
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('RCVD');
    expect(
      await bank.getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, cancellation.scaStatusUrl!),
    ).toBe('received');

    const { returnForm } = await driveSca(cancellation.scaRedirectUrl, { ...rita, decision: 'approve' });
    expect(returnForm.action).toBe(CALLBACK);
    expect(returnForm.fields).toMatchObject({ paymentId: initiated.paymentId, transactionStatus: 'CANC' });
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('CANC');
    expect(
      await bank.getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, cancellation.scaStatusUrl!),
    ).toBe('finalised');
    expect((await fetch(initiated.scaRedirectUrl!)).status).toBe(409);
    const ledger = banks.banks.get('bank-r')!.ledger;
    expect(
      ledger
        .debits(ibanOf(definition('bank-r'), '00000000001'))
        .filter((debit) => debit.paymentId === initiated.paymentId),
    ).toEqual([]);
  });

  it('the PSU keeps the payment: the cancellation fails, the payment stays RCVD and can still be authorised', async () => {
    const { bank, initiated } = await paymentAtBankR();
    const cancellation = await bank.cancelPayment(PRODUCT, initiated.paymentId, { redirectUri: CALLBACK });
    if (cancellation.status !== 'authorisationNeeded') throw new Error('expected an authorisation');
    await driveSca(cancellation.scaRedirectUrl, { ...rita, decision: 'deny' });
    expect(
      await bank.getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, cancellation.scaStatusUrl!),
    ).toBe('failed');
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('RCVD');
    await driveSca(initiated.scaRedirectUrl!, { ...rita, decision: 'approve' });
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('ACSC');
  });

  it('a link to the cancellation’s status that leaves the payment is refused, not followed', async () => {
    const { bank, initiated } = await paymentAtBankR();
    const failure = await bank
      .getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, 'https://elsewhere.example/status')
      .catch((error: unknown) => error);
    expect(xs2aErrorTypeOf(failure)).toBe(Xs2aErrorType.ProtocolError);
  });
});

describe('cancellation without SCA (Bank A)', () => {
  const alice = ibanOf(definition('bank-a'), '00000001');

  it('a payment not yet authorised is cancelled at once (204); an executed one is 405 CANCELLATION_INVALID', async () => {
    const bank = client('bank-a');
    const first = await bank.initiatePayment('domestic-credit-transfers', paymentFrom(alice, 'BGN'), {
      approach: 'REDIRECT',
      redirectUri: CALLBACK,
    });
    expect(
      await bank.cancelPayment('domestic-credit-transfers', first.paymentId, { redirectUri: CALLBACK }),
    ).toEqual({
      status: 'cancelled',
    });
    expect(await bank.getPaymentStatus('domestic-credit-transfers', first.paymentId)).toBe('CANC');

    const second = await bank.initiatePayment('domestic-credit-transfers', paymentFrom(alice, 'BGN'), {
      approach: 'REDIRECT',
      redirectUri: CALLBACK,
    });
    await driveSca(second.scaRedirectUrl!, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
    });
    const refused = await bank
      .cancelPayment('domestic-credit-transfers', second.paymentId, { redirectUri: CALLBACK })
      .catch((error: unknown) => error);
    expect(xs2aErrorTypeOf(refused)).toBe(Xs2aErrorType.StatusInvalid);
  });
});
