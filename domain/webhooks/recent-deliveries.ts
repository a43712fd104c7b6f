/**
 * A receiver's memory of the `webhook-id`s it handled lately, so that a delivery replayed with its valid
 * signature (within the timestamp tolerance) is dropped instead of handled twice, as the Standard Webhooks
 * specification asks of receivers. Bounded: at most `capacity` ids, the oldest forgotten first.
 *
 * A delivery's id is the same on every attempt (the platform retries a failed one with the same
 * `webhook-id`), so an id counts as handled only once its handling succeeded: `settle(id, false)` forgets
 * it again and the platform's next attempt goes through.
 */
export class RecentDeliveries {
  readonly #ids = new Map<string, 'in-flight' | 'handled'>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity: ${capacity}`);
  }

  /**
   * `'new'` (now in flight: handle it, then `settle`), `'in-flight'` (the same id is being handled right
   * now) or `'handled'` (already handled: drop it).
   */
  claim(id: string): 'new' | 'in-flight' | 'handled' {
    const known = this.#ids.get(id);
    if (known) return known;
    this.#ids.set(id, 'in-flight');
    for (const oldest of this.#ids.keys()) {
      if (this.#ids.size <= this.capacity) break;
      this.#ids.delete(oldest);
    }
    return 'new';
  }

  /** After handling a claimed id: remembered when `handled`, forgotten (a retry is new) when not. */
  settle(id: string, handled: boolean): void {
    if (!this.#ids.has(id)) return;
    if (handled) this.#ids.set(id, 'handled');
    else this.#ids.delete(id);
  }
}
