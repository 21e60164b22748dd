import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../contract/desktop-bridge/errors.js';
import { isWithin, resolveWorkspace } from './workspace.js';

describe('workspace check (realpath under realpath of the root)', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'mcpd-ws-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'proj', 'sub'), { recursive: true });
  mkdirSync(outside);
  mkdirSync(`${root}-evil`);
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(root, 'proj'), join(root, 'inner-link'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: BridgeError) => e.code,
    );

  it('accepts the root itself, folders under it and links that stay inside', async () => {
    expect(await resolveWorkspace(root, root)).toBe(root);
    expect(await resolveWorkspace(root, join(root, 'proj/sub'))).toBe(join(root, 'proj/sub'));
    expect(await resolveWorkspace(root, join(root, 'inner-link'))).toBe(join(root, 'proj'));
    expect(await resolveWorkspace(root, `${root}/proj/sub/..`)).toBe(join(root, 'proj'));
  });

  it('refuses a symlink inside the root that points outside', async () => {
    expect(await code(resolveWorkspace(root, join(root, 'escape')))).toBe('DESKTOP_WORKSPACE_FORBIDDEN');
  });

  it('refuses `..` climbing out, a sibling sharing the prefix, and paths that do not exist', async () => {
    expect(await code(resolveWorkspace(root, `${root}/proj/../../outside`))).toBe('DESKTOP_WORKSPACE_FORBIDDEN');
    expect(await code(resolveWorkspace(root, `${root}-evil`))).toBe('DESKTOP_WORKSPACE_FORBIDDEN');
    expect(await code(resolveWorkspace(root, join(root, 'missing')))).toBe('DESKTOP_WORKSPACE_FORBIDDEN');
  });

  it('names the resolved path and the root in the error', async () => {
    const err = (await resolveWorkspace(root, join(root, 'escape')).catch((e: unknown) => e)) as BridgeError;
    expect(err.message).toContain(outside);
    expect(err.details).toMatchObject({ resolved: outside, workspaceRoot: root });
  });

  it('isWithin is a path-segment prefix, not a string prefix', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b', '/a/b/c')).toBe(true);
    expect(isWithin('/a/b', '/a/bc')).toBe(false);
    expect(isWithin('/', '/x')).toBe(true);
  });
});
