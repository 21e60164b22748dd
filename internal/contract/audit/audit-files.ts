import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The k-th rotated file of a log (`audit.jsonl.1` is the newest rotated one). */
export function rotatedFile(file: string, k: number): string {
  return `${file}.${k}`;
}

/**
 * The log's files in chain order, oldest first: every rotated file found beside it (whatever `keep` is
 * now), then the current one when it exists.
 */
export function chainFiles(file: string): string[] {
  const dir = dirname(file);
  const base = basename(file);
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rotated = names
    .map((n) => (n.startsWith(`${base}.`) ? Number(n.slice(base.length + 1)) : NaN))
    .filter((k) => Number.isInteger(k) && k > 0)
    .sort((a, b) => b - a)
    .map((k) => rotatedFile(file, k));
  return existsSync(file) ? [...rotated, file] : rotated;
}

/** `audit.jsonl` in the store's state directory, unless runtime.yaml names a file. */
export function auditFileIn(stateDir: string, configured: string): string {
  return configured || join(stateDir, 'audit.jsonl');
}
