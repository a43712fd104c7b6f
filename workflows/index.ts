// Every workflow type the platform's worker runs. The worker bundles this file.
export * from './messaging/hlr-lookup.ts';
export * from './messaging/message-delivery.ts';
export * from './messaging/sender-id-registration.ts';
export * from './webhooks/delivery.ts';
