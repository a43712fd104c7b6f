// Every workflow type of the lending platform (one file per process), for the worker's bundle.
export * from './bank-verification.ts';
export * from './card-deletion.ts';
export * from './loan.ts';
export * from './notification-key.ts';
export * from './signing-code.ts';
