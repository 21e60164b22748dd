import { statSync } from 'node:fs';
import { HOST_RE } from '../../internal/domain/finder/dpe-uri-rules.js';

export interface DocsArgs {
  host: string;
  dirs: string[];
  /** --version: print it and exit. */
  version?: boolean;
}

export const USAGE =
  'usage: mcpd-docs [--host NAME] DIR...   (or --version)\n  Serves the documents under DIR... as dpe://NAME/... MCP resources over stdio (default NAME: docs).';

/** Parses argv (without node and script); throws an Error whose message says what to fix. */
export function parseArgs(argv: readonly string[]): DocsArgs {
  let host = 'docs';
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--host' || a.startsWith('--host=')) {
      const v = a === '--host' ? argv[++i] : a.slice('--host='.length);
      if (v === undefined || !HOST_RE.test(v)) {
        throw new Error(`--host needs a name of letters, digits, ".", "_", "~" or "-", got ${JSON.stringify(v ?? '')}\n${USAGE}`);
      }
      host = v;
    } else if (a === '--version') {
      return { host, dirs, version: true };
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
  return { host, dirs };
}
