import { basename, dirname } from 'node:path';
import type { ImportResult } from './import-map.js';

/**
 * A project's `.mcp.json` is read by its client (Claude Code) in the project folder, and the servers it
 * names start there: `./server.js`, `build/index.js` and other relative paths mean that folder. mcpd starts
 * servers elsewhere, so each stdio server of such a file without a `cwd` of its own gets the folder as
 * `cwd`, and the notes say so.
 */
export function runInProjectFolder(r: ImportResult, file: string): void {
  if (basename(file) !== '.mcp.json') return;
  const dir = dirname(file);
  for (const s of r.servers) {
    if (s.transport !== undefined || s.command === undefined || s.cwd !== undefined) continue;
    s.cwd = dir;
    r.notes.push(`server "${s.name}": runs in ${dir}, the project folder of ${basename(file)}, so its relative paths keep working`);
  }
}
