import { Refusal } from './refusal.ts';

/**
 * An idempotency key (messaging's `Idempotency-Key`, a cash desk's key, lending's `reference`) is bound
 * to the request it first came with: the same request again answers the first answer, another request
 * under the same key is refused with 422 `idempotency_key_reused`, as the IETF Idempotency-Key draft
 * answers a key reused with another payload.
 */

/** A request's fields as compared: texts, numbers, booleans, instants; null and undefined are "not given". */
export type RequestFields = Record<string, string | number | boolean | Date | null | undefined>;

const comparable = (value: RequestFields[string]) =>
  value instanceof Date ? value.getTime() : value === undefined ? null : value;

/** Whether `again` asks for what `first` asked for: every field of either equal. */
export function sameRequest(first: RequestFields, again: RequestFields): boolean {
  const fields = new Set([...Object.keys(first), ...Object.keys(again)]);
  return [...fields].every((field) => comparable(first[field]) === comparable(again[field]));
}

/** The 422 for a key reused with another request; `field` names the key when it is a body field. */
export function keyReused(message: string, field?: string): Refusal {
  return new Refusal(
    422,
    'idempotency_key_reused',
    message,
    field ? [{ field, message: 'was used for a different request' }] : undefined,
  );
}

/** Refuses (422) `again` when it is not the request `first` was. */
export function requireSameRequest(
  first: RequestFields,
  again: RequestFields,
  refusal: { message: string; field?: string },
): void {
  if (!sameRequest(first, again)) throw keyReused(refusal.message, refusal.field);
}
