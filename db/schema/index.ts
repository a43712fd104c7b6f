export * from './messaging.ts';
export * from './webhooks.ts';
