import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Stack traces of a bundled program point into its TypeScript sources, with the source maps read only when
// a stack is formatted. Node's own support (process.setSourceMapsEnabled) reads and parses the map of
// every module loaded after it is switched on, and measures each module's lines character by character:
// for the stdio gateway's chunk that is enough work for V8 to optimise Node's helper, which pages the
// optimizing compiler in. Together some 4.7 MiB of a process that every MCP client session spawns
// (docs/benchmarks.md, "Start-up"). Here a program pays for a map only when one of its frames is printed.

/** A bundle file's map, read the first time one of its frames is formatted; null when it has none. */
const maps = new Map<string, SourceMap | null>();

/**
 * Formats every stack from now on with the frames of bundle files (`x.js` with `x.js.map` beside it, as
 * scripts/build-bundles.mjs writes them) mapped to their sources; other frames are left as they are.
 */
export function mapStackTracesLazily(): void {
  Error.prepareStackTrace = (error: unknown, frames: NodeJS.CallSite[]) => {
    const head = header(error);
    return frames.length === 0 ? head : `${head}\n    at ${frames.map(mappedFrame).join('\n    at ')}`;
  };
}

/** What V8 puts first: `Name: message` (Error.prototype.toString, which also takes the objects captureStackTrace is given). */
function header(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    // An object whose name or message getter throws: the frames are still worth printing.
    return '<error>';
  }
}

/** The frame as V8 prints it, with its bundle location replaced by the source location when the map has one. */
function mappedFrame(frame: NodeJS.CallSite): string {
  const text = String(frame);
  const file = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!file?.endsWith('.js') || line === null || column === null) return text;
  const map = mapOf(file);
  if (!map) return text;
  const entry = map.findEntry(line - 1, column - 1);
  if (!('originalSource' in entry)) return text;
  const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : entry.originalSource;
  return text.replace(`${file}:${line}:${column}`, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
}

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map !== undefined) return map;
  map = readMap(file);
  maps.set(file, map);
  return map;
}

function readMap(file: string): SourceMap | null {
  const url = file.startsWith('file:') ? new URL(`${file}.map`) : undefined;
  if (!url && !file.startsWith('/')) return null; // node:internal frames and the like have no map
  try {
    const payload = JSON.parse(readFileSync(url ?? `${file}.map`, 'utf8')) as SourceMapPayload;
    // The map names its sources relative to itself: made absolute so a printed frame can be opened.
    const base = url ?? pathToFileURL(`${file}.map`);
    payload.sources = payload.sources.map((s) => new URL(s, base).href);
    return new SourceMap(payload);
  } catch {
    // No map beside the file (a dependency outside the bundle) or an unreadable one: frames stay as V8 printed them.
    return null;
  }
}
