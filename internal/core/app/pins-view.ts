import { mkdirSync, watch } from 'node:fs';
import type { Subscription } from '../../contract/control/control-areas.js';
import type { ServerPinsView } from '../../contract/dashboard/dashboard-events.js';
import { approvePins, pinDiff } from '../../contract/model/tool-pins.js';
import { pinnedServers, pinsDir, readPins, writePins } from '../../contract/pins/pin-files.js';
import { McpdError } from '../../shared/errors.js';

/**
 * Tool pins as the dashboard sees and approves them: through the pin files themselves, as `mcpdctl pins`
 * does. The core's ToolPins watches the same folder, so an approval here offers the tools again and
 * tells connected clients (list_changed), whichever process wrote it.
 */
export function pinsViews(stateDir: string): ServerPinsView[] {
  return pinnedServers(stateDir)
    .sort()
    .map((server) => {
      const pins = readPins(stateDir, server);
      return {
        server,
        pinned: Object.keys(pins.tools).length,
        withheld: Object.values(pins.withheld).map((w) => ({ name: w.name, kind: w.kind, from: w.from, diff: pinDiff(w) })),
      };
    });
}

/** Approves a server's withheld tools (one, or all); refuses when there is nothing to approve. */
export function approveFromDashboard(stateDir: string, server: string, tool?: string): string[] {
  const { next, approved } = approvePins(readPins(stateDir, server), tool);
  if (approved.length === 0) {
    throw new McpdError(
      'NOT_FOUND',
      tool === undefined ? `server ${server} has no withheld tool` : `tool ${tool} of server ${server} is not withheld`,
    );
  }
  writePins(stateDir, server, next);
  return approved;
}

/**
 * The views, first at once and then after every change of the pins folder; bursts of file events
 * (a write is a temp file and a rename) collapse into one view, and an unchanged view is not repeated.
 */
export function watchPinsViews(stateDir: string): Subscription<ServerPinsView[]> {
  mkdirSync(pinsDir(stateDir), { recursive: true, mode: 0o700 });
  let dirty = true;
  let done = false;
  let last = '';
  let wake: (() => void) | undefined;
  const poke = (): void => {
    dirty = true;
    wake?.();
  };
  const watcher = watch(pinsDir(stateDir), poke);
  // The core's stop does not wait for a page's watch.
  watcher.unref();
  // A failed watch ends the views: the page shows the watch error and asks again on reconnect.
  watcher.on('error', () => finish());
  function finish(): void {
    done = true;
    watcher.close();
    wake?.();
  }
  const it: Subscription<ServerPinsView[]> = {
    [Symbol.asyncIterator]: () => it,
    async next() {
      for (;;) {
        while (!done && !dirty) await new Promise<void>((r) => (wake = r));
        if (done) return { done: true, value: undefined };
        dirty = false;
        const views = pinsViews(stateDir);
        const text = JSON.stringify(views);
        if (text === last) continue;
        last = text;
        return { done: false, value: views };
      }
    },
    async return() {
      finish();
      return { done: true, value: undefined };
    },
  };
  return it;
}
