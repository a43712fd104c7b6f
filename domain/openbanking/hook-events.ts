/**
 * What a hook (createhook) is called back for; a hook registered without `events` receives all of them.
 *   consent.finished  adding IBAN accounts ended (the consent + SCA flow: authorised, denied, abandoned, expired)
 *   payment.finished  a payment process ended
 */
export const HOOK_EVENTS = ['consent.finished', 'payment.finished'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
