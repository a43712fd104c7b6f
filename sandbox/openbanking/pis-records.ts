import type { TransactionStatus } from '../../domain/openbanking/payments.ts';
import type {
  PaymentInitiationRequest,
  PaymentProduct,
  ScaApproach,
  ScaStatus,
} from '../../domain/openbanking/xs2a.ts';
import type { SandboxAccount } from './catalogue.ts';

/**
 * What a sandbox bank keeps of a payment initiation and its authorisations, and its request-signing
 * policy: the bank's state (bank.ts) holds them, the PIS routes (pis.ts) change them.
 */

export interface SandboxAuthorisation {
  authorisationId: string;
  approach: ScaApproach;
  scaStatus: ScaStatus;
  otpDigest?: Buffer;
  otpExpiresAt?: number;
  otpAttempts: number;
  sessionDigest?: Buffer;
}

export interface SandboxPayment {
  paymentId: string;
  product: PaymentProduct;
  request: PaymentInitiationRequest;
  debtor: SandboxAccount;
  amountMinor: number;
  transactionStatus: TransactionStatus;
  approach: ScaApproach;
  redirectUri: string | null;
  nokRedirectUri: string | null;
  authorisations: Map<string, SandboxAuthorisation>;
  /**
   * The cancellation's own authorisations (a bank with `cancellationSca`: DELETE answered 202, the PSU
   * approves the cancellation on the bank's page), with where the page sends the browser back.
   */
  cancellations?: Map<
    string,
    SandboxAuthorisation & { redirectUri: string | null; nokRedirectUri: string | null }
  >;
  createdAt: Date;
  /** What the TPP sent about the PSU (tests read what the platform forwarded). */
  psuIpAddress?: string;
  psuUserAgent?: string;
  statusReason?: string;
}

/** Whether the bank requires signed requests, and which certificates it accepts (sandbox control). */
export interface TppSigningPolicy {
  /** Unsigned requests are refused (400 SIGNATURE_MISSING). A signed request is always verified. */
  required: boolean;
  /** SHA-256 fingerprints of accepted certificates; undefined: any certificate valid now. */
  trusted?: string[];
}
