// Every workflow type the platform's worker runs. The worker bundles this file.
export * from './collect/billing.ts';
export * from './collect/notifications.ts';
export * from './collect/obligation.ts';
export * from './messaging/hlr-lookup.ts';
export * from './messaging/message-delivery.ts';
export * from './messaging/sender-id-registration.ts';
export * from './openbanking/accounts.ts';
export * from './openbanking/bank-directory.ts';
export * from './openbanking/consent.ts';
export * from './openbanking/consent-refresh.ts';
export * from './openbanking/user-deletion.ts';
export * from './webhooks/index.ts';
