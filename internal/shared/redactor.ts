/** What replaces a secret in anything shown to people. */
export const REDACTED = '***';

/** Secrets shorter than this are not masked: masking "ab" would garble every text and protect nothing. */
const MIN_SECRET_LENGTH = 3;

/**
 * Masks known secret values in text and in structured values. One instance per core process (below),
 * fed with every secret of the resolved store, and applied on every way out: status, errors, logs,
 * StreamLogs, metrics — so a new output path cannot forget a secret the store knows about.
 */
export class Redactor {
  private pattern?: RegExp;
  private storeSecrets: string[] = [];
  /** Secrets learnt at run time (OAuth tokens), by who learnt them; a store reload keeps them. */
  private readonly extra = new Map<string, string[]>();

  /** Replaces the known secrets (the store was loaded or reloaded). */
  use(secrets: Iterable<string>): void {
    this.storeSecrets = [...secrets];
    this.rebuild();
  }

  /** Replaces the run-time secrets of one source (e.g. one server's OAuth tokens); cheap when unchanged. */
  useExtra(source: string, secrets: readonly string[]): void {
    const before = this.extra.get(source);
    if (before && before.length === secrets.length && before.every((s, i) => s === secrets[i])) return;
    this.extra.set(source, [...secrets]);
    this.rebuild();
  }

  private rebuild(): void {
    const all = [...this.storeSecrets, ...[...this.extra.values()].flat()];
    const list = [...new Set(all)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
    this.pattern = list.length === 0 ? undefined : new RegExp(list.map(escapeRegExp).join('|'), 'g');
  }

  text(s: string): string {
    return this.pattern ? s.replace(this.pattern, REDACTED) : s;
  }

  /** A copy with every string inside masked (keys included); Errors become their masked message. */
  value<T>(v: T): T {
    return this.pattern ? (this.walk(v, 0) as T) : v;
  }

  private walk(v: unknown, depth: number): unknown {
    if (typeof v === 'string') return this.text(v);
    if (v instanceof Error) return this.text(v.message);
    if (v === null || typeof v !== 'object' || depth > 32) return v;
    if (Array.isArray(v)) return v.map((x) => this.walk(x, depth + 1));
    // Only plain objects are rebuilt: a Date, a Map or a byte array keeps its type (and its JSON form).
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.walk(x, depth + 1);
    return out;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The core's redactor. A process-wide instance because every way out of the process (loggers created
 * before the store is read, error mapping in the rpc layer, the log bus) must mask the same set; a core
 * process serves one store.
 */
export const secretRedactor = new Redactor();
