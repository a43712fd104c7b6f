// The webhook delivery engine's workflow types (bundled by the worker). Other workflows send events
// with sendWebhook (send.ts).
export * from './delivery.ts';
