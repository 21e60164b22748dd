import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const dirs: string[] = [];

/** Test support: a temporary profile store from `file → lines`, removed after each test. */
export async function store(files: Record<string, string[]>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpd-store-'));
  dirs.push(dir);
  for (const [name, lines] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), `${lines.join('\n')}\n`);
  }
  return dir;
}

afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
