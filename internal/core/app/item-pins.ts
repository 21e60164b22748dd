import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { AREA_NOUNS, AREA_SHAPES, PIN_AREAS, itemWithheldMessage, type PinArea } from '../../contract/model/item-pins.js';
import { checkPins } from '../../contract/model/tool-pins.js';
import { pinFileDigest, pinsDir, readPins, writePins } from '../../store/pin-files.js';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/**
 * One area's pins (prompts, resources or resource templates), as ToolPins keeps tools': a server's
 * listing passes through `admit` before any caller's index sees it, and a changed or renamed item is
 * withheld until `mcpdctl pins approve` (watched here) accepts it.
 */
class ItemPins {
  private watcher?: FSWatcher;
  /** Digest of each server's pin file as last written or seen (pin-files.ts): our own writes are not approvals. */
  private readonly own = new Map<string, string>();

  constructor(
    private readonly stateDir: string,
    readonly area: PinArea,
    private readonly onChange: () => void,
    private readonly log: Log,
  ) {}

  watch(): void {
    mkdirSync(pinsDir(this.stateDir, this.area), { recursive: true, mode: 0o700 });
    this.watcher = watch(pinsDir(this.stateDir, this.area), (_event, file) => {
      if (!file?.endsWith('.json')) return;
      const server = decodeURIComponent(file.slice(0, -5));
      const now = pinFileDigest(this.stateDir, server, this.area);
      if (this.own.get(server) === now) return; // our own write
      this.own.set(server, now);
      this.onChange();
    });
    // The core's stop does not wait for this handle.
    this.watcher.unref();
    this.watcher.on('error', (e) =>
      this.log(`${this.area} pins folder watch failed; approvals apply on the next listing`, { error: e.message }),
    );
  }

  close(): void {
    this.watcher?.close();
  }

  /** The items callers may see: first-seen ones are pinned, changed ones withheld (and logged once). */
  admit(server: string, items: readonly JsonObject[]): JsonObject[] {
    const shape = AREA_SHAPES[this.area];
    const pins = readPins(this.stateDir, server, this.area);
    const keyed = items.map((definition) => ({ name: String(definition[shape.key] ?? ''), definition }));
    const r = checkPins(pins, keyed, shape);
    if (r.changed) {
      for (const w of Object.values(r.next.withheld)) {
        if (!pins.withheld[w.name])
          this.log(`${AREA_NOUNS[this.area]} withheld: its description changed since it was approved`, {
            server,
            item: w.name,
            kind: w.kind,
          });
      }
      try {
        this.own.set(server, writePins(this.stateDir, server, r.next, this.area));
      } catch (e) {
        this.log(`could not write ${this.area} pins`, { server, error: (e as Error).message });
      }
    }
    return r.admitted.map((k) => k.definition);
  }

  /** The refusal for a get or read of `key` (a prompt's name, a resource's URI) of `server` when it is withheld. */
  refusal(server: string, key: string): McpdError | undefined {
    const w = readPins(this.stateDir, server, this.area).withheld[key];
    return w ? new McpdError('FAILED_PRECONDITION', itemWithheldMessage(server, this.area, w)) : undefined;
  }

  /** The refusal for `key` by whichever server of `servers` withholds it. */
  refusalAmong(servers: readonly string[], key: string): McpdError | undefined {
    for (const s of servers) {
      const r = this.refusal(s, key);
      if (r) return r;
    }
    return undefined;
  }
}

export type ItemPinsSet = Record<PinArea, ItemPins>;

/** The three areas' pins, watched; `onChange(area)` follows an approval made by another process. */
export function itemPinsSet(stateDir: string, onChange: (area: PinArea) => void, log: Log): ItemPinsSet {
  const set = Object.fromEntries(PIN_AREAS.map((a) => [a, new ItemPins(stateDir, a, () => onChange(a), log)])) as ItemPinsSet;
  for (const p of Object.values(set)) p.watch();
  return set;
}
