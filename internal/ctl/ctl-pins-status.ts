import { pinDiff } from '../contract/model/tool-pins.js';
import { pinnedServers, readPins } from '../contract/pins/pin-files.js';
import { stateDirFor } from '../contract/store/state-dir.js';

/**
 * What `mcpdctl status` says of tool pins: the tools withheld because their definition changed since it
 * was approved, each as its diff. Read from the running core's store's state directory (the same files
 * `mcpdctl pins` reads), so it needs no call to the core.
 */
export function withheldSection(configDir: string): string {
  const stateDir = stateDirFor(configDir);
  const lines: string[] = [];
  for (const server of pinnedServers(stateDir).sort()) {
    for (const w of Object.values(readPins(stateDir, server).withheld)) {
      lines.push(`  ${server}: ${w.name}`, ...pinDiff(w).map((l) => `    ${l}`));
    }
  }
  if (lines.length === 0) return '';
  return `\nWITHHELD TOOLS (changed since approved; see "mcpdctl pins", accept with "mcpdctl pins approve SERVER [TOOL]")\n${lines.join('\n')}\n`;
}

/** One server's pins for `mcpdctl status SERVER`: how many are pinned, and each withheld tool's diff. */
export function serverPinLines(configDir: string, server: string): string[] {
  const pins = readPins(stateDirFor(configDir), server);
  const withheld = Object.values(pins.withheld);
  const pinned = Object.keys(pins.tools).length;
  if (pinned === 0 && withheld.length === 0) return [];
  const out = [`  tool pins: ${pinned} pinned, ${withheld.length} withheld`];
  for (const w of withheld) {
    out.push(...pinDiff(w).map((l) => `    ${l}`), `    accept with: mcpdctl pins approve ${server} ${w.name}`);
  }
  return out;
}
