/**
 * Many small writes as few statements: an item added while a statement runs goes into the next one, so
 * each item is written within about one statement's time of being added, however many arrive. The
 * promise of `add` settles when the statement holding its item has (its error if it failed).
 */
export function coalescing<T>(write: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let queued: Array<{ item: T; settle: (error?: unknown) => void }> = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (queued.length > 0) {
      const taking = queued;
      queued = [];
      let failure: unknown;
      try {
        await write(taking.map((entry) => entry.item));
      } catch (error) {
        failure = error ?? new Error('write failed');
      }
      for (const entry of taking) entry.settle(failure);
    }
    running = false;
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      queued.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!running) void drain();
    });
}
