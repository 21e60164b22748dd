/**
 * A map for registries that live long while their entries come and go fast: requests in flight by id,
 * the aborts of running calls. Keys are numbers or strings, compared with `===`.
 *
 * Why not a `Map`: V8 keeps a Map's entries in a hash table that is replaced when it grows, shrinks or
 * fills with deleted entries, and the replaced table keeps its entries and a link to its successor (for
 * iterators). Once one table of a long-lived Map sits in the old generation, every later table is
 * reachable from it until the next full GC, and with them every value they held: each scavenge copied
 * and then promoted every request of the interval with all it referenced. Measured in the core under a
 * 16-loop tool-call load, 2.4 MB of the 10.7 MB allocated between scavenges survived, each scavenge
 * paused 4 ms, and most of the core's and the gateway's GC time went to it (decision 46).
 *
 * Here the slots are plain arrays with open addressing (linear probing, deletion by backward shift,
 * so no tombstones and no rebuild while the size is stable), and arrays that are replaced on a resize
 * are emptied first: nothing old keeps a young entry alive.
 */
export class ChurnMap<K extends number | string, V> {
  private keys: (K | undefined)[];
  private vals: (V | undefined)[];
  /** Each used slot's home slot (its key's hash), so a shift never hashes a string again. */
  private homes: Int32Array;
  private mask: number;
  private count = 0;

  constructor() {
    this.keys = new Array<K | undefined>(MIN_CAPACITY).fill(undefined);
    this.vals = new Array<V | undefined>(MIN_CAPACITY).fill(undefined);
    this.homes = new Int32Array(MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
  }

  get size(): number {
    return this.count;
  }

  get(key: unknown): V | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.vals[i];
  }

  set(key: K, value: V): this {
    const found = this.find(key);
    if (found >= 0) {
      this.vals[found] = value;
      return this;
    }
    if ((this.count + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    this.place(key, value, hashOf(key) & this.mask);
    this.count++;
    return this;
  }

  delete(key: unknown): boolean {
    let hole = this.find(key);
    if (hole < 0) return false;
    const { keys, vals, homes, mask } = this;
    // Backward shift: later entries of the same probe run move up, so lookups never meet a gap early.
    for (let j = (hole + 1) & mask; keys[j] !== undefined; j = (j + 1) & mask) {
      const home = homes[j]!;
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j];
        vals[hole] = vals[j];
        homes[hole] = home;
        hole = j;
      }
    }
    keys[hole] = undefined;
    vals[hole] = undefined;
    this.count--;
    if (this.keys.length > MIN_CAPACITY && this.count * 16 < this.keys.length) this.resize(this.keys.length / 2);
    return true;
  }

  /** A snapshot: the map may change while the caller walks it. */
  values(): V[] {
    const out: V[] = [];
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== undefined) out.push(this.vals[i] as V);
    return out;
  }

  clear(): void {
    this.resize(MIN_CAPACITY, true);
  }

  private find(key: unknown): number {
    if (typeof key !== 'number' && typeof key !== 'string') return -1;
    const { keys, mask } = this;
    for (let i = hashOf(key) & mask; keys[i] !== undefined; i = (i + 1) & mask) if (keys[i] === key) return i;
    return -1;
  }

  private place(key: K, value: V, home: number): void {
    let i = home;
    while (this.keys[i] !== undefined) i = (i + 1) & this.mask;
    this.keys[i] = key;
    this.vals[i] = value;
    this.homes[i] = home;
  }

  private resize(capacity: number, drop = false): void {
    const { keys, vals } = this;
    this.keys = new Array<K | undefined>(capacity).fill(undefined);
    this.vals = new Array<V | undefined>(capacity).fill(undefined);
    this.homes = new Int32Array(capacity);
    this.mask = capacity - 1;
    if (drop) this.count = 0;
    else for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) this.place(keys[i]!, vals[i]!, hashOf(keys[i]!) & this.mask);
    // The old arrays may be in the old generation: emptied, they keep no entry alive (see above).
    keys.fill(undefined);
    vals.fill(undefined);
  }
}

/** Room for a burst of calls without resizing; it grows past half full and shrinks below a sixteenth
 * (far apart, so a load that swings between a few and a few dozen calls does not resize each swing). */
const MIN_CAPACITY = 32;

/** Well spread for sequential ids (the common key) and cheap for short strings. */
function hashOf(key: number | string): number {
  let h: number;
  if (typeof key === 'string') {
    h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  } else if (Number.isSafeInteger(key)) {
    h = (key | 0) ^ ((key / 0x100000000) | 0);
  } else {
    return hashOf(String(key));
  }
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}
