import { mkdirSync, watch } from 'node:fs';
import type { Subscription } from '../../contract/control/control-areas.js';
import type { ServerPinsView } from '../../contract/dashboard/dashboard-events.js';
import { approvePins, pinDiff } from '../../contract/model/tool-pins.js';
import { AREA_NOUNS, AREA_SHAPES, PIN_AREAS } from '../../contract/model/item-pins.js';
import { pinnedServers, pinsDir, readPins, writePins } from '../../store/pin-files.js';
import { McpdError } from '../../shared/errors.js';

/**
 * Tool (prompt, resource) pins as the dashboard sees and approves them: through the pin files themselves, as `mcpdctl pins`
 * does. The core's ToolPins watches the same folder, so an approval here offers the tools again and
 * tells connected clients (list_changed), whichever process wrote it.
 */
function pinsViews(stateDir: string): ServerPinsView[] {
  const servers = new Set([...pinnedServers(stateDir), ...PIN_AREAS.flatMap((a) => pinnedServers(stateDir, a))]);
  return [...servers].sort().map((server) => {
    const pins = readPins(stateDir, server);
    const withheld = Object.values(pins.withheld).map((w) => ({ name: w.name, kind: w.kind, from: w.from, diff: pinDiff(w) }));
    for (const area of PIN_AREAS) {
      for (const w of Object.values(readPins(stateDir, server, area).withheld)) {
        const diff = pinDiff(w, AREA_SHAPES[area]);
        withheld.push({ name: w.name, kind: w.kind, from: w.from, diff: diff.map((l, i) => (i === 0 ? `${AREA_NOUNS[area]} ${l}` : l)) });
      }
    }
    return { server, pinned: Object.keys(pins.tools).length, withheld };
  });
}

/** Approves a server's withheld tools, prompts and resources (one by name, or all); refuses when there is nothing to approve. */
export function approveFromDashboard(stateDir: string, server: string, tool?: string): string[] {
  const approved: string[] = [];
  for (const area of [undefined, ...PIN_AREAS]) {
    const r = approvePins(readPins(stateDir, server, area), tool);
    if (r.approved.length === 0) continue;
    writePins(stateDir, server, r.next, area);
    approved.push(...r.approved);
  }
  if (approved.length === 0) {
    throw new McpdError(
      'NOT_FOUND',
      tool === undefined ? `server ${server} has nothing withheld` : `${tool} of server ${server} is not withheld`,
    );
  }
  return approved;
}

/**
 * The views, first at once and then after every change of the pins folder; bursts of file events
 * (a write is a temp file and a rename) collapse into one view, and an unchanged view is not repeated.
 */
export function watchPinsViews(stateDir: string): Subscription<ServerPinsView[]> {
  for (const area of PIN_AREAS) mkdirSync(pinsDir(stateDir, area), { recursive: true, mode: 0o700 });
  let dirty = true;
  let done = false;
  let last = '';
  let wake: (() => void) | undefined;
  const poke = (): void => {
    dirty = true;
    wake?.();
  };
  const watchers = [pinsDir(stateDir), ...PIN_AREAS.map((a) => pinsDir(stateDir, a))].map((dir) => watch(dir, poke));
  for (const w of watchers) {
    // The core's stop does not wait for a page's watch.
    w.unref();
    // A failed watch ends the views: the page shows the watch error and asks again on reconnect.
    w.on('error', () => finish());
  }
  function finish(): void {
    done = true;
    for (const w of watchers) w.close();
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
