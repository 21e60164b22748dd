/**
 * Entries the audit writer digests and chains in one turn of the event loop. A batch of a busy core (a few
 * hundred entries, 10–20 µs each) done in one go held every call that arrived meanwhile for 3–5 ms. Between
 * slices calls go on; the batch is still one append.
 */
const SLICE = 16;

/** Whether the item at `index` (counting from `from`) starts a new slice: wait for the next turn before it. */
export function sliceEnds(index: number, from = 0): boolean {
  return index > from && (index - from) % SLICE === 0;
}

/** Resolves in a later turn of the event loop, after the I/O that is ready (a call that came in). */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
