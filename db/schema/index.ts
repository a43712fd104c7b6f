export * from './collect.ts';
export * from './collect-card-page.ts';
export * from './collect-notifications.ts';
export * from './collect-one-touch.ts';
export * from './messaging.ts';
export * from './openbanking.ts';
export * from './openbanking-page-cursors.ts';
export * from './webhooks.ts';
