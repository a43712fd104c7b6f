/**
 * What a hook (createhook) is called back for; a hook registered without `events` receives all of them.
 *   consent.finished  adding IBAN accounts ended (the consent + SCA flow: authorised, denied, abandoned, expired)
 *   payment.finished  a payment process ended
 */
export const HOOK_EVENTS = ['consent.finished', 'payment.finished'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/**
 * How a hook call's body is written (decision 0064): `envelope`, a Standard Webhooks JSON body
 * `{"type","timestamp","data":{"jws"}}` that the reference library's default `verify()` accepts (the
 * default); `jose`, the bare compact JWS (`application/jose`) of release 0.1.0, which hooks registered
 * before keep. Either way the event is the JWS, verified with the published JWKS.
 */
export const HOOK_BODY_FORMATS = ['envelope', 'jose'] as const;
export type HookBodyFormat = (typeof HOOK_BODY_FORMATS)[number];

/** The webhook engine's wire format of a hook call in `format`. */
export const hookCallFormat = (format: HookBodyFormat) =>
  format === 'jose' ? ('openbanking-jws' as const) : ('openbanking-jws-envelope' as const);

/**
 * The compact JWS of a received hook call, whichever body format (a receiver's side: the demo, tests):
 * `data.jws` of the JSON envelope, else the body itself. Verify it with the JWKS before trusting it.
 */
export function hookCallJws(body: string): string {
  if (!body.trimStart().startsWith('{')) return body;
  const parsed = JSON.parse(body) as { data?: { jws?: unknown } };
  if (typeof parsed.data?.jws !== 'string') throw new Error('the hook call carries no data.jws');
  return parsed.data.jws;
}
