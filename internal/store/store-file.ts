import { readFile, stat } from 'node:fs/promises';
import type { ConfigIssue } from '../shared/errors.js';
import { foreignControl } from '../shared/file-trust.js';
import { parseSource, type Source } from './source.js';

/** Default cap on one store file: a 50 MB YAML froze the core for 19 s and left it at 2.5 GB. */
const DEFAULT_MAX_STORE_FILE_BYTES = 1024 * 1024;

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** A problem with a whole file (or directory) rather than with one of its fields. */
export function fileIssue(file: string, message: string, hint: string): ConfigIssue {
  return { file, line: 1, field: '', message, hint };
}

export function maxFileBytesFrom(env: NodeJS.ProcessEnv): number {
  const n = Number(env.MCPD_STORE_MAX_FILE_BYTES);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_STORE_FILE_BYTES;
}

/** One store file, parsed: undefined (with the reason in `issues`) when it is not trusted, too big or unreadable. */
export async function readSource(file: string, issues: ConfigIssue[], maxBytes: number): Promise<Source | undefined> {
  try {
    const trust = await trustIssue(file, 'file');
    if (trust) {
      issues.push(trust);
      return undefined;
    }
    const size = (await stat(file)).size;
    if (size > maxBytes) {
      issues.push(
        fileIssue(
          file,
          `the file is ${size} bytes, over the ${maxBytes}-byte limit for a store file`,
          'make it smaller (split servers into profiles), or raise MCPD_STORE_MAX_FILE_BYTES',
        ),
      );
      return undefined;
    }
    return parseSource(file, await readFile(file, 'utf8'));
  } catch (e) {
    issues.push(fileIssue(file, `cannot read file: ${(e as Error).message}`, 'check that the file exists and is readable'));
    return undefined;
  }
}

/**
 * A store file or directory another user owns or can write is refused: whatever it says would run as this
 * user (a profile's commands, a command input). Root-owned paths are trusted.
 */
export async function trustIssue(path: string, kind: 'file' | 'directory'): Promise<ConfigIssue | undefined> {
  const why = foreignControl(await stat(path), { allowRootOwner: true });
  if (!why) return undefined;
  return fileIssue(
    path,
    `this store ${kind} cannot be trusted: ${why}, so another user could make mcpd run their commands`,
    `make it yours and writable only by you: chown $(id -u) ${path} && chmod go-w ${path}`,
  );
}
