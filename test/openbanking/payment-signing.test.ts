import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createXs2aClient, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { createTppSigner } from '../../credentials/openbanking/tpp-signing.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import { ibanOf, SANDBOX_BANKS } from '../../sandbox/openbanking/catalogue.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  bankOf,
  CREDITOR,
  confirm,
  createIbanPayment,
  payingCustomer,
  paymentOnceSettled,
  type Receiver,
} from './payment-helpers.ts';

/**
 * The gateway's TPP identity: with OPENBANKING_TPP_SIGNING_KEY and OPENBANKING_TPP_CERTIFICATE every
 * request to a bank carries Digest, Signature and TPP-Signature-Certificate (Berlin Group signing). The
 * sandbox bank here requires signed requests from the registered certificate: the gateway's consents
 * and payments go through, and a request signed with another key, unsigned, or from an unregistered
 * certificate is refused by the bank.
 */

let dir: string;
let platform: TestPlatform;
let hooks: Receiver;
const pem = (name: string) => readFileSync(path.join(dir, name), 'utf8');

function certificate(name: string) {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}/O=Sandbox TPP`,
      '-keyout',
      path.join(dir, `${name}.key`),
      '-out',
      path.join(dir, `${name}.crt`),
    ],
    { stdio: 'ignore' },
  );
  return { key: pem(`${name}.key`), certificate: pem(`${name}.crt`) };
}

let gateway: { key: string; certificate: string };
let stranger: { key: string; certificate: string };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tpp-'));
  gateway = certificate('gateway');
  stranger = certificate('stranger');
  platform = await startTestPlatform({
    env: { OPENBANKING_TPP_SIGNING_KEY: gateway.key, OPENBANKING_TPP_CERTIFICATE: gateway.certificate },
  });
  hooks = await startReceiver();
  // Bank A accepts only requests signed with the gateway's registered certificate.
  bankOf(platform).tppSigning = {
    required: true,
    trusted: [new X509Certificate(gateway.certificate).fingerprint256],
  };
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const payment = {
  debtorAccount: { iban: ibanOf(SANDBOX_BANKS[0]!, '00000001'), currency: 'BGN' },
  instructedAmount: { currency: 'BGN', amount: '1.00' },
  creditorAccount: { iban: CREDITOR.creditorIban },
  creditorName: CREDITOR.creditorName,
};

describe('request signing toward banks', () => {
  it('the gateway signs its consents and payments: the bank that requires signatures serves them', async () => {
    const alice = await payingCustomer(platform, hooks);
    const created = await createIbanPayment(alice);
    const confirmed = await confirm(alice, created.code, { scaMethod: 'DECOUPLED' });
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA' });
    const bankPayment = [...bankOf(platform).payments.values()].at(-1)!;
    await fetch(
      `${platform.sandbox.banks.url}/bank-a/sandbox/payments/${bankPayment.paymentId}/decoupled/approve`,
      {
        method: 'POST',
      },
    );
    expect(await paymentOnceSettled(alice, created.code)).toMatchObject({ status: 'CONFIRMED' });
  });

  it('the bank refuses a request signed with another key, an unsigned one, and an unregistered certificate', async () => {
    const bank = (signer?: ReturnType<typeof createTppSigner>) =>
      createXs2aClient({
        baseUrl: `${platform.sandbox.banks.url}/bank-a`,
        requestTimeoutMs: 5000,
        ...(signer ? { signer } : {}),
      });
    const attempt = async (signer?: ReturnType<typeof createTppSigner>) => {
      try {
        await bank(signer).initiatePayment('domestic-credit-transfers', payment, { approach: 'DECOUPLED' });
        return 'accepted';
      } catch (error) {
        return { type: xs2aErrorTypeOf(error), message: (error as Error).message };
      }
    };
    const wrongKey = await attempt(
      createTppSigner({ privateKeyPem: stranger.key, certificatePem: gateway.certificate }),
    );
    expect(wrongKey).toMatchObject({ type: Xs2aErrorType.SignatureInvalid });
    expect((wrongKey as { message: string }).message).toContain('401 SIGNATURE_INVALID');
    const unsigned = await attempt();
    expect((unsigned as { message: string }).message).toContain('400 SIGNATURE_MISSING');
    const unregistered = await attempt(
      createTppSigner({ privateKeyPem: stranger.key, certificatePem: stranger.certificate }),
    );
    expect((unregistered as { message: string }).message).toContain('401 CERTIFICATE_INVALID');
    // The right key is accepted (the same request).
    expect(
      await attempt(createTppSigner({ privateKeyPem: gateway.key, certificatePem: gateway.certificate })),
    ).toBe('accepted');
  });
});
