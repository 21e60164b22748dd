import { statSync } from 'node:fs';
import { HOST_RE } from '../../internal/contract/finder/dpe-uri-rules.js';
import { DEFAULT_DOC_LIMITS, type DocLimits } from '../../internal/docs-server/doc-limits.js';

export interface DocsArgs {
  host: string;
  dirs: string[];
  limits: DocLimits;
  /** --version: print it and exit. */
  version?: boolean;
}

const LIMIT_FLAGS = new Map<string, keyof DocLimits>([
  ['--max-file-bytes', 'maxFileBytes'],
  ['--max-unpacked-bytes', 'maxUnpackedBytes'],
  ['--parse-timeout-ms', 'parseTimeoutMs'],
  ['--parse-memory-mb', 'parseMemoryMb'],
  ['--parse-workers', 'parseWorkers'],
]);

export const USAGE =
  'usage: mcpd-docs [--host NAME] [--max-file-bytes N] [--max-unpacked-bytes N] [--parse-timeout-ms N] [--parse-memory-mb N] [--parse-workers N] DIR...   (or --version)\n' +
  '  Serves the documents under DIR... as dpe://NAME/... MCP resources over stdio (default NAME: docs).\n' +
  `  Files over ${DEFAULT_DOC_LIMITS.maxFileBytes} bytes, workbooks unpacking to over ${DEFAULT_DOC_LIMITS.maxUnpackedBytes} bytes and parses over ${DEFAULT_DOC_LIMITS.parseTimeoutMs} ms are skipped (defaults).\n` +
  `  Files are parsed in at most ${DEFAULT_DOC_LIMITS.parseWorkers} workers at once (--parse-workers) of ${DEFAULT_DOC_LIMITS.parseMemoryMb} MB heap each (--parse-memory-mb).`;

/** Parses argv (without node and script); throws an Error whose message says what to fix. */
export function parseArgs(argv: readonly string[]): DocsArgs {
  let host = 'docs';
  const dirs: string[] = [];
  const limits: DocLimits = { ...DEFAULT_DOC_LIMITS };
  const rest = [...argv];
  for (let a = rest.shift(); a !== undefined; a = rest.shift()) {
    const [flag = a] = a.split('=');
    const limit = LIMIT_FLAGS.get(flag);
    if (limit !== undefined) {
      const v = a.includes('=') ? a.slice(flag.length + 1) : rest.shift();
      const n = Number(v);
      if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} needs a whole number above 0, got ${JSON.stringify(v ?? '')}\n${USAGE}`);
      limits[limit] = n;
    } else if (a === '--host' || a.startsWith('--host=')) {
      const v = a === '--host' ? rest.shift() : a.slice('--host='.length);
      if (v === undefined || !HOST_RE.test(v)) {
        throw new Error(`--host needs a name of letters, digits, ".", "_", "~" or "-", got ${JSON.stringify(v ?? '')}\n${USAGE}`);
      }
      host = v;
    } else if (a === '--version') {
      return { host, dirs, limits, version: true };
    } else if (a === '--help' || a === '-h') {
      throw new Error(USAGE);
    } else if (a.startsWith('-')) {
      throw new Error(`unknown option ${a}\n${USAGE}`);
    } else {
      dirs.push(a);
    }
  }
  if (dirs.length === 0) throw new Error(`no folder given\n${USAGE}`);
  for (const d of dirs) {
    let ok = false;
    try {
      ok = statSync(d).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) throw new Error(`${d} is not a readable directory; pass existing folders`);
  }
  return { host, dirs, limits };
}
