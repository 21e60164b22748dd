import { pinDiff } from '../contract/model/tool-pins.js';
import { AREA_NOUNS, AREA_SHAPES, PIN_AREAS } from '../contract/model/item-pins.js';
import { pinnedServers, readPins } from '../store/pin-files.js';
import { stateDirFor } from '../launch/state-dir.js';

/**
 * What `mcpdctl status` says of pins: the tools (prompts, resources) withheld because their definition changed since it
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
  for (const area of PIN_AREAS) {
    for (const server of pinnedServers(stateDir, area).sort()) {
      for (const w of Object.values(readPins(stateDir, server, area).withheld)) {
        lines.push(`  ${server}: ${AREA_NOUNS[area]} ${w.name}`, ...pinDiff(w, AREA_SHAPES[area]).map((l) => `    ${l}`));
      }
    }
  }
  if (lines.length === 0) return '';
  return `\nWITHHELD TOOLS, PROMPTS, RESOURCES (changed since approved; see "mcpdctl pins", accept with "mcpdctl pins approve SERVER [NAME]")\n${lines.join('\n')}\n`;
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
