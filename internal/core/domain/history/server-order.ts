import { must } from '../../../shared/must.js';

/**
 * Server display order shared by the desktop and finder organizers (spec desktop-window-resources.md
 * step 2; finder-dpe-sdk-guide.md uses the same rule).
 */

/** The only part of a tool-call record the ordering reads. */
export interface ServerTouch {
  readonly server: string;
}

/**
 * Orders `allServers`: servers found in `history` first, most recently called first (the history is
 * walked from its end, each server kept at its latest position), then the servers never called,
 * by name. Names compare by UTF-16 code units, not locale, so the order is the same on every machine.
 * Servers that appear only in the history are left out; duplicates in `allServers` count once.
 *
 * @param history tool calls in chronological order (oldest first), as `ToolCallHistory.records()` gives them.
 * @param allServers the servers to order, e.g. those that have windows or documents.
 */
export function serverOrder(history: readonly ServerTouch[], allServers: Iterable<string>): string[] {
  const wanted = new Set(allServers);
  const ordered: string[] = [];
  const placed = new Set<string>();
  for (let i = history.length - 1; i >= 0 && placed.size < wanted.size; i--) {
    const s = must(history[i], 'a history record').server; // i runs over the array's own indexes
    if (wanted.has(s) && !placed.has(s)) {
      placed.add(s);
      ordered.push(s);
    }
  }
  const rest = [...wanted].filter((s) => !placed.has(s)).sort(compareNames);
  return ordered.concat(rest);
}

/** Code-unit order, deterministic across locales. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rank of each server in `serverOrder(...)`: 0 is first. Handy for sort keys. */
export function serverRanks(history: readonly ServerTouch[], allServers: Iterable<string>): Map<string, number> {
  return new Map(serverOrder(history, allServers).map((s, i) => [s, i]));
}
