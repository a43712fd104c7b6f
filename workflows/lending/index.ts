// Every workflow type of the lending platform (one file per process), for the worker's bundle.
export * from './bank-verification.ts';
export * from './loan.ts';
export * from './signing-code.ts';
