import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import type { DownstreamTool } from '../../contract/model/tool.js';
import { approvePins, checkPins, withheldMessage, type ServerPins, type Withheld } from '../../contract/model/tool-pins.js';
import { pinFileDigest, pinsDir, readPins, serverOfPinFile, writePins } from '../../store/pin-files.js';
import { McpdError } from '../../shared/errors.js';

/**
 * Tool definitions pinned on first sight, per server name, in the state directory. A server's listing
 * passes through `admit` before any caller's index sees it: changed and renamed tools are withheld
 * until approved (`mcpdctl pins approve`, the dashboard). Approvals made by another process reach the
 * core through a watch on the pins folder; `onChange` then rebuilds the listings of that server.
 */
export class ToolPins {
  /**
   * Digest of each server's pin file as last written or seen: tells our own writes from approvals by
   * others (a digest, not the text, which grows with every tool ever pinned).
   */
  private readonly known = new Map<string, string>();
  private watcher?: FSWatcher;

  constructor(
    private readonly stateDir: string,
    private readonly onChange: (server: string) => void,
    private readonly log: (msg: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** Starts noticing approvals written by `mcpdctl pins approve`. */
  watch(): void {
    mkdirSync(pinsDir(this.stateDir), { recursive: true, mode: 0o700 });
    this.watcher = watch(pinsDir(this.stateDir), (_event, file) => {
      const server = file ? serverOfPinFile(file) : undefined;
      if (server === undefined) return;
      const now = pinFileDigest(this.stateDir, server);
      if (this.known.get(server) === now) return; // our own write
      this.known.set(server, now);
      this.onChange(server);
    });
    // The core's stop does not wait for this handle.
    this.watcher.unref();
    this.watcher.on('error', (e) =>
      this.log('pins folder watch failed; approvals from mcpdctl apply on the next listing', { error: e.message }),
    );
  }

  close(): void {
    this.watcher?.close();
  }

  /** The tools callers may see: first-seen ones are pinned, changed ones withheld (and logged once). */
  admit(server: string, tools: readonly DownstreamTool[]): DownstreamTool[] {
    const pins = readPins(this.stateDir, server);
    const r = checkPins(pins, tools);
    if (r.changed) {
      for (const w of Object.values(r.next.withheld)) {
        if (!pins.withheld[w.name])
          this.log('tool withheld: its definition changed since it was approved', { server, tool: w.name, kind: w.kind, from: w.from });
      }
      this.save(server, r.next);
    }
    return r.admitted;
  }

  withheld(server: string): Withheld[] {
    return Object.values(readPins(this.stateDir, server).withheld);
  }

  /** The refusal for a call to `tool` of `server` when it is withheld. */
  refusal(server: string, tool: string): McpdError | undefined {
    const w = readPins(this.stateDir, server).withheld[tool];
    return w ? new McpdError('FAILED_PRECONDITION', withheldMessage(server, w)) : undefined;
  }

  /** Approves what is withheld for `server` (one tool or all); returns the names approved. */
  approve(server: string, tool?: string): string[] {
    const { next, approved } = approvePins(readPins(this.stateDir, server), tool);
    if (approved.length) {
      this.save(server, next);
      this.onChange(server);
    }
    return approved;
  }

  private save(server: string, pins: ServerPins): void {
    try {
      this.known.set(server, writePins(this.stateDir, server, pins));
    } catch (e) {
      this.log('could not write tool pins', { server, error: (e as Error).message });
    }
  }
}
