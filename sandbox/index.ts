import type { Config } from '../platform/config.ts';
import { startSandboxAcquirer } from './collect/acquirer.ts';
import { startSandboxMerchant } from './collect/merchant.ts';
import { startSandboxBureau } from './lending/bureau.ts';
import { startHttpParties } from './messaging/http-parties.ts';
import { startSmppCarrier } from './messaging/smpp-carrier.ts';
import { startSandboxBanks } from './openbanking/index.ts';

export interface SandboxOptions {
  host?: string;
  /** 0 picks a free port (tests). */
  smppPort: number;
  /**
   * The second SMSC (same system id and password), a failover target for carriers and routes (decision
   * 0079); 0 picks a free port.
   */
  smpp2Port?: number;
  /** The second SMSC's port was derived, not configured: a free one is taken when it is in use. */
  smpp2PortMayMove?: boolean;
  httpPort: number;
  smppSystemId: string;
  smppPassword: string;
  /** The sandbox SMSC refuses `message_payload` (SANDBOX_SMSC_REFUSES_MESSAGE_PAYLOAD). */
  smppRefuseMessagePayload?: boolean;
  receiptDelayMs?: number;
  chatAppDelayMs?: number;
  /**
   * The credentials the chat-app and HLR providers require or sign with (CHATAPP_API_KEY,
   * CHATAPP_PHONE_NUMBER_ID, CHATAPP_APP_SECRET, HLR_API_KEY, HLR_API_SECRET); default the published ones.
   */
  chatAppApiKey?: string;
  chatAppPhoneNumberId?: string;
  chatAppAppSecret?: string;
  hlrApiKey?: string;
  hlrApiSecret?: string;
  /** The sandbox banks (XS2A + SCA page); 0 picks a free port, undefined too. */
  banksPort?: number;
  /** Where browsers reach the sandbox banks (their SCA page links); default their listening URL. */
  banksPublicUrl?: string | undefined;
  /** See SandboxBanksOptions.weeklyMaintenance. */
  banksWeeklyMaintenance?: boolean;
  /** Page size of Sandbox Bank B's transactions. */
  bankTransactionPageSize?: number;
  /** The sandbox merchant of the payment-collection gateway; 0 or undefined picks a free port. */
  merchantPort?: number;
  /** The sandbox card acquirer; 0 or undefined picks a free port. */
  acquirerPort?: number;
  /** The API key the sandbox acquirer requires (COLLECT_ACQUIRER_API_KEY). */
  acquirerApiKey: string;
  /** Where browsers reach the acquirer's 3-D Secure page; default its listening URL. */
  acquirerPublicUrl?: string | undefined;
  /** The sandbox credit bureau of the lending platform; 0 or undefined picks a free port. */
  bureauPort?: number;
  /** The API key the sandbox bureau requires (LENDING_BUREAU_API_KEY). */
  bureauApiKey?: string;
  /** How long the bureau's `Slow` test customer takes to answer. */
  bureauSlowMs?: number;
}

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/**
 * The sandbox parties as the configuration describes them: `npm start` runs them beside the platform
 * (on loopback), the sandbox container (sandbox/main.ts) on its own at `host` (HOST).
 */
export function startConfiguredSandbox(config: Config, host?: string): Promise<Sandbox> {
  return startSandbox({
    host,
    smppPort: config.SMPP_PORT,
    // Unset: 2776 beside the default SMPP_PORT (2775), else a free port (a test's or stack's own layout).
    smpp2Port: config.SANDBOX_SMPP_SECOND_PORT || (config.SMPP_PORT === 2775 ? 2776 : 0),
    smpp2PortMayMove: !config.SANDBOX_SMPP_SECOND_PORT,
    httpPort: config.SANDBOX_HTTP_PORT,
    banksPort: config.SANDBOX_BANKS_PORT,
    banksPublicUrl: config.SANDBOX_BANKS_PUBLIC_URL,
    merchantPort: config.SANDBOX_MERCHANT_PORT,
    acquirerPort: config.SANDBOX_ACQUIRER_PORT,
    acquirerApiKey: config.COLLECT_ACQUIRER_API_KEY,
    acquirerPublicUrl: config.SANDBOX_ACQUIRER_PUBLIC_URL,
    bureauPort: config.SANDBOX_BUREAU_PORT,
    bureauApiKey: config.LENDING_BUREAU_API_KEY,
    smppSystemId: config.SMPP_SYSTEM_ID,
    smppPassword: config.SMPP_PASSWORD,
    smppRefuseMessagePayload: config.SANDBOX_SMSC_REFUSES_MESSAGE_PAYLOAD,
    chatAppApiKey: config.CHATAPP_API_KEY,
    chatAppPhoneNumberId: config.CHATAPP_PHONE_NUMBER_ID,
    chatAppAppSecret: config.CHATAPP_APP_SECRET,
    hlrApiKey: config.HLR_API_KEY,
    hlrApiSecret: config.HLR_API_SECRET,
  });
}

/** Starts every simulated outside party: the SMS carrier (SMPP) and the HTTP providers. */
export async function startSandbox(options: SandboxOptions) {
  const smpp = await startSmppCarrier({
    host: options.host ?? '127.0.0.1',
    port: options.smppPort,
    systemId: options.smppSystemId,
    password: options.smppPassword,
    refuseMessagePayload: options.smppRefuseMessagePayload ?? false,
    ...(options.receiptDelayMs !== undefined ? { receiptDelayMs: options.receiptDelayMs } : {}),
  });
  const http = await startHttpParties({
    host: options.host ?? '127.0.0.1',
    port: options.httpPort,
    ...(options.chatAppDelayMs !== undefined ? { chatAppDelayMs: options.chatAppDelayMs } : {}),
    ...(options.chatAppApiKey ? { chatAppApiKey: options.chatAppApiKey } : {}),
    ...(options.chatAppPhoneNumberId ? { chatAppPhoneNumberId: options.chatAppPhoneNumberId } : {}),
    ...(options.chatAppAppSecret ? { chatAppAppSecret: options.chatAppAppSecret } : {}),
    ...(options.hlrApiKey ? { hlrApiKey: options.hlrApiKey } : {}),
    ...(options.hlrApiSecret ? { hlrApiSecret: options.hlrApiSecret } : {}),
    // The handset: the SMS the sandbox SMSC accepted, readable per number (signing codes, OTPs).
    handset: () =>
      smpp2.handset.length === 0
        ? smpp.handset
        : [...smpp.handset, ...smpp2.handset].sort((a, b) => a.at.getTime() - b.at.getTime()),
    // ... and SMS they send to a number, delivered by the SMSC to the bound gateway (decision 0087).
    handsetSends: (sms) => smpp.sendMobileOriginated(sms),
  });
  const banks = await startSandboxBanks({
    host: options.host ?? '127.0.0.1',
    port: options.banksPort ?? 0,
    ...(options.banksPublicUrl ? { publicUrl: options.banksPublicUrl } : {}),
    ...(options.banksWeeklyMaintenance !== undefined
      ? { weeklyMaintenance: options.banksWeeklyMaintenance }
      : {}),
    ...(options.bankTransactionPageSize !== undefined
      ? { transactionPageSize: options.bankTransactionPageSize }
      : {}),
    // The banks send their one-time codes through the sandbox SMS carrier, as a bank's SMS gateway would.
    sms: { url: smpp.url, systemId: options.smppSystemId, password: options.smppPassword },
  });
  const merchant = await startSandboxMerchant({
    host: options.host ?? '127.0.0.1',
    port: options.merchantPort ?? 0,
  });
  const acquirer = await startSandboxAcquirer({
    host: options.host ?? '127.0.0.1',
    port: options.acquirerPort ?? 0,
    apiKey: options.acquirerApiKey,
    publicUrl: options.acquirerPublicUrl,
  });
  const bureau = await startSandboxBureau({
    host: options.host ?? '127.0.0.1',
    port: options.bureauPort ?? 0,
    apiKey: options.bureauApiKey ?? 'sandbox-bureau-key-0000',
    ...(options.bureauSlowMs !== undefined ? { slowMs: options.bureauSlowMs } : {}),
  });
  const startSecondSmsc = (port: number) =>
    startSmppCarrier({
      host: options.host ?? '127.0.0.1',
      port,
      systemId: options.smppSystemId,
      password: options.smppPassword,
      ...(options.receiptDelayMs !== undefined ? { receiptDelayMs: options.receiptDelayMs } : {}),
    });
  // Started last, so that it takes no port configured for another party; a derived port that is in
  // use gives way to a free one (its URL is `smpp2.url`).
  const smpp2 = await startSecondSmsc(options.smpp2Port ?? 0).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE' || !options.smpp2PortMayMove) throw error;
    return startSecondSmsc(0);
  });
  return {
    smpp,
    smpp2,
    http,
    banks,
    merchant,
    acquirer,
    bureau,
    async stop() {
      await Promise.allSettled([
        smpp.stop(),
        smpp2.stop(),
        http.stop(),
        banks.stop(),
        merchant.stop(),
        acquirer.stop(),
        bureau.stop(),
      ]);
    },
  };
}
