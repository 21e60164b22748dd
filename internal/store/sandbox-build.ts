import { homedir } from 'node:os';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import type { SandboxSpec } from '../contract/model/sandbox.js';
import { issueAt, type LocStr } from './source.js';
import type { ExpandContext } from './expand.js';
import type { RawSandbox } from './types.js';

/** `~` and `~/…` are the user's home; a relative grant is taken relative to the store folder. */
function absolutePath(text: string, storeDir: string, home: string): string {
  if (text === '~') return home;
  if (text.startsWith('~/')) return join(home, text.slice(2));
  return isAbsolute(text) ? normalize(text) : resolve(storeDir, text);
}

/** The sandbox with placeholders expanded and paths made absolute; undefined after a reported problem. */
export async function buildSandbox(
  raw: RawSandbox,
  one: (loc: LocStr) => Promise<string>,
  ctx: ExpandContext,
  storeDir: string,
): Promise<SandboxSpec | undefined> {
  const home = ctx.variable('HOME') || homedir();
  let ok = true;
  const paths = async (list: LocStr[], writable: boolean): Promise<string[]> => {
    const out: string[] = [];
    for (const loc of list) {
      const p = absolutePath(await one(loc), storeDir, home);
      if (writable && (p === '/' || p === home)) {
        ctx.issues.push(
          issueAt(
            loc.where,
            ctx.file,
            `a write grant of ${p} gives the server the whole ${p === '/' ? 'filesystem' : 'home folder'}`,
            'grant the folders it works in',
          ),
        );
        ok = false;
      }
      out.push(p);
    }
    return [...new Set(out)];
  };
  const read = await paths(raw.read, false);
  const write = await paths(raw.write, true);
  const allow: string[] = [];
  for (const loc of raw.allow) allow.push(await one(loc));
  return ok ? { read, write, allow: [...new Set(allow)] } : undefined;
}
