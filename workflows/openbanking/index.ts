// Every workflow type of the open-banking gateway (one file per process); the worker bundles them
// through workflows/index.ts.
export * from './account-refresh.ts';
export * from './bank-directory.ts';
export * from './bulk-payment.ts';
export * from './consent.ts';
export * from './consent-refresh.ts';
export * from './consent-termination.ts';
export * from './payment.ts';
export * from './user-deletion.ts';
