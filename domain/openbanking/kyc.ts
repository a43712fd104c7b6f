/**
 * KYC status of an open-banking user. The agent performs the identity check and reports the outcome
 * (POST kyc/update); the gateway keeps the state and refuses moves the table does not allow.
 *
 *   NOT_STARTED → PENDING | VERIFIED | REJECTED
 *   PENDING     → VERIFIED | REJECTED
 *   REJECTED    → PENDING                       (the customer submits again)
 *   VERIFIED    → REJECTED                      (verification withdrawn, e.g. a document found forged)
 */
export const KYC_STATUSES = ['NOT_STARTED', 'PENDING', 'VERIFIED', 'REJECTED'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

/** Statuses an agent may set (NOT_STARTED is only the initial one). */
export const KYC_UPDATE_STATUSES = ['PENDING', 'VERIFIED', 'REJECTED'] as const;

const ALLOWED: Record<KycStatus, readonly KycStatus[]> = {
  NOT_STARTED: ['PENDING', 'VERIFIED', 'REJECTED'],
  PENDING: ['VERIFIED', 'REJECTED'],
  REJECTED: ['PENDING'],
  VERIFIED: ['REJECTED'],
};

export function kycTransitionAllowed(from: KycStatus, to: KycStatus): boolean {
  return ALLOWED[from].includes(to);
}
