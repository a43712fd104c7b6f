// Every workflow type the platform's worker runs. The worker bundles this file.
export * from './collect/index.ts';
export * from './lending/index.ts';
export * from './messaging/index.ts';
export * from './openbanking/index.ts';
export * from './webhooks/index.ts';
