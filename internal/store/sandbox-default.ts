import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether bubblewrap can be found the way the core starts it (`bwrap` on PATH, Linux only). */
function bwrapOnPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (platform !== 'linux') return false;
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', 'bwrap'), constants.X_OK);
      return true;
    } catch {
      // Not in this folder of PATH.
      return false;
    }
  });
}

/**
 * The starter profile's `sandbox:` line: on where bubblewrap is installed, so every server added later
 * runs sandboxed unless its entry says otherwise. Where it is missing, turning it on would stop every
 * server from starting: the line is left commented, saying what to install.
 */
export function starterSandboxLines(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const why =
    '# Every stdio server below runs in a sandbox (docs/sandbox.md) that sees only its own program, no\n' +
    '# home folder and no network, unless its entry grants more or says "sandbox: false".\n';
  if (bwrapOnPath(env, platform)) return `${why}sandbox: true\n`;
  const missing =
    platform === 'linux'
      ? 'needs bubblewrap ("bwrap" on PATH), not found when this file was made: install it (apt install bubblewrap), then uncomment'
      : `needs Linux and bubblewrap; not available on ${platform}`;
  return `${why}# sandbox: true  # ${missing}\n`;
}
