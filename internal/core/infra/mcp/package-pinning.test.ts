import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stdioSpec } from '../../../../test/support/mcp-sessions.js';
import { FIXTURES } from '../../../../test/support/paths.js';
import { readPackagePin, writePackagePin } from '../../../store/package-pins.js';
import { must } from '../../../shared/must.js';
import { pinnedCmd, type CheckedPins } from './package-pinning.js';

interface Index {
  indexUrl: string;
  publish(name: string, version: string, files: { filename: string; sha256: string }[]): void;
  close(): Promise<void>;
}
const whl = (d: string) => ({ filename: 'tool-1.0.0-py3-none-any.whl', sha256: d.repeat(64) });

// The launcher's side of decision 74, against the loopback PyPI index: checked once per pool and core run.
describe('pinnedCmd', () => {
  let index: Index;
  let stateDir: string;
  beforeAll(async () => {
    const { startPypiIndex } = (await import(join(FIXTURES, 'registries/pypi-index.mjs'))) as { startPypiIndex: () => Promise<Index> };
    index = await startPypiIndex();
    index.publish('tool', '1.0.0', [whl('a')]);
    stateDir = mkdtempSync(join(tmpdir(), 'mcpd-pinning-'));
  });
  afterAll(async () => {
    await index.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const spec = (indexUrl = index.indexUrl) => stdioSpec('tu', ['uvx', 'tool'], { env: { UV_DEFAULT_INDEX: indexUrl } });

  it("asks the registry on a pool's first start only, and again in the next core run", async () => {
    const run1: CheckedPins = new Map();
    expect(await pinnedCmd(spec(), stateDir, run1)).toEqual(['uvx', 'tool@1.0.0']);
    index.publish('tool', '1.0.0', [whl('b')]); // the approved release's file replaced
    // The pool's next instance in the same run: not asked again.
    expect(await pinnedCmd(spec(), stateDir, run1)).toEqual(['uvx', 'tool@1.0.0']);
    // The next run: asked, and refused.
    await expect(pinnedCmd(spec(), stateDir, new Map())).rejects.toThrow(
      /cannot start server tu: its package tool changed since it was approved \(integrity of 1\.0\.0 sha256-.* → sha256-.*\); see and accept the change with "mcpdctl update tu"; files: ~ tool-1\.0\.0-py3-none-any\.whl$/,
    );
  });

  it('refuses a version the registry no longer has', async () => {
    const pin = must(readPackagePin(stateDir, 'tu'), 'the pin');
    writePackagePin(stateDir, 'tu', { ...pin, version: '0.9.0' });
    await expect(pinnedCmd(spec(), stateDir, new Map())).rejects.toThrow(
      /cannot start server tu: its registry no longer has the approved version tool@0\.9\.0 \(sha256-.*\): .*answered 404; see and accept what it resolves to now with "mcpdctl update tu"/,
    );
  });

  it('starts the recorded pin unchecked when the registry does not answer, and asks again on the next instance', async () => {
    const events: string[] = [];
    const run: CheckedPins = new Map();
    const dead = spec('http://127.0.0.1:1/simple/');
    expect(await pinnedCmd(dead, stateDir, run, (m) => events.push(m))).toEqual(['uvx', 'tool@0.9.0']);
    expect(await pinnedCmd(dead, stateDir, run, (m) => events.push(m))).toEqual(['uvx', 'tool@0.9.0']);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatch(
      /^server tu: could not check tool@0\.9\.0 against its registry \(.*\); starting the recorded pin \(sha256-.*\) unchecked$/,
    );
  });
});
