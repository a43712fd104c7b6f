// Every workflow type of the payment-collection gateway (one file per process), for the worker's bundle.
export * from './billing.ts';
export * from './merchant-notifications.ts';
export * from './obligation.ts';
export * from './statements.ts';
