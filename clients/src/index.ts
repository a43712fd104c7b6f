export * from './collect.ts';
export * from './lending.ts';
export * from './messaging.ts';
export * from './openbanking.ts';
export type { ExtraClientOptions, PlatformError } from './shared.ts';
