import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssue } from '../../../shared/errors.js';
import { specFingerprint } from '../../../contract/model/fingerprint.js';
import type { ProfileStore } from '../../../contract/model/profile.js';
import { loadStore } from '../../../store/index.js';
import { diffStores, specsByFingerprint } from './diff-stores.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const BASE: Record<string, string> = {
  'callers.yaml': 'callers: { vscode: dev }\n',
  'profiles/default.yaml': 'servers:\n  - { name: a, cmd: [srv-a] }\n  - { name: b, cmd: [srv-b] }\n',
  'profiles/dev.yaml': 'servers:\n  - { name: a2, cmd: [srv-a] }\n  - { name: off, cmd: [srv-off], disabled: true }\n',
};

async function load(files: Record<string, string | null>): Promise<ProfileStore> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpd-diff-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries({ ...BASE, ...files })) {
    if (text === null) continue;
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  const r = await loadStore(dir, { env: {} });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return r.store;
}

/** Two loads of one directory with an edit in between, as in a reload (cwd = store dir stays equal). */
async function pair(edit: Record<string, string | null>): Promise<[ProfileStore, ProfileStore]> {
  const prev = await load({});
  for (const [name, text] of Object.entries(edit)) {
    if (text === null) await rm(join(prev.dir, name));
    else await writeFile(join(prev.dir, name), text);
  }
  const r = await loadStore(prev.dir, { env: {} });
  if (!r.ok) throw new Error(r.issues.map(formatIssue).join('\n'));
  return [prev, r.store];
}

const fpOf = (s: ProfileStore, profile: string, server: string): string =>
  specFingerprint(
    s.profiles.get(profile)?.servers.find((x) => x.name === server) ??
      (() => {
        throw new Error(server);
      })(),
  );

describe('specsByFingerprint', () => {
  it('groups identical specs under one fingerprint and leaves out disabled ones', async () => {
    const s = await load({});
    const m = specsByFingerprint(s);
    expect(m.size).toBe(2);
    expect(m.get(fpOf(s, 'default', 'a'))?.references).toEqual(['default/a', 'dev/a2']);
    expect(m.get(fpOf(s, 'default', 'b'))?.references).toEqual(['default/b']);
    expect(m.has(fpOf(s, 'dev', 'off'))).toBe(false);
  });
});

describe('diffStores', () => {
  it('finds nothing between two loads of the same files', async () => {
    const [prev, next] = await pair({});
    expect(diffStores(prev, next)).toEqual({
      addedFingerprints: [],
      removedFingerprints: [],
      changedProfiles: [],
      callersChanged: false,
      runtimeChanged: false,
    });
  });

  it('reports a changed scheduling field as a new pool while the old one is still referenced', async () => {
    const [prev, next] = await pair({ 'profiles/dev.yaml': 'servers:\n  - { name: a2, cmd: [srv-a], maxInstances: 2 }\n' });
    const d = diffStores(prev, next);
    expect(d.addedFingerprints).toEqual([fpOf(next, 'dev', 'a2')]);
    expect(d.removedFingerprints).toEqual([]);
    expect(d.changedProfiles).toEqual(['dev']);
  });

  it('reports removed pools, renamed servers and removed or added profiles', async () => {
    const [prev, next] = await pair({
      'profiles/default.yaml': 'servers:\n  - { name: renamed, cmd: [srv-a] }\n',
      'profiles/dev.yaml': null,
      'profiles/extra.yaml': 'servers: []\n',
      'callers.yaml': 'callers: {}\n',
    });
    const d = diffStores(prev, next);
    expect(d.addedFingerprints).toEqual([]);
    expect(d.removedFingerprints).toEqual([fpOf(prev, 'default', 'b')]);
    expect(d.changedProfiles).toEqual(['default', 'dev', 'extra']);
    expect(d.callersChanged).toBe(true);
    expect(d.runtimeChanged).toBe(false);
  });

  it('notices namespace, inputs, callers and runtime changes', async () => {
    const [prev, next] = await pair({
      'profiles/dev.yaml': `${BASE['profiles/dev.yaml']}namespace: { separator: "." }\n`,
      'profiles/default.yaml': `${BASE['profiles/default.yaml']}inputs: [{ id: x, type: promptString }]\n`,
      'callers.yaml': 'callers: { vscode: default }\n',
      'runtime.yaml': 'pageSize: 7\n',
    });
    const d = diffStores(prev, next);
    expect(d).toEqual({
      addedFingerprints: [],
      removedFingerprints: [],
      changedProfiles: ['default', 'dev'],
      callersChanged: true,
      runtimeChanged: true,
    });
  });

  it('treats enabling a disabled server as an added pool', async () => {
    const [prev, next] = await pair({
      'profiles/dev.yaml': 'servers:\n  - { name: a2, cmd: [srv-a] }\n  - { name: off, cmd: [srv-off] }\n',
    });
    const d = diffStores(prev, next);
    expect(d.addedFingerprints).toEqual([fpOf(next, 'dev', 'off')]);
    expect(d.changedProfiles).toEqual(['dev']);
  });
});
