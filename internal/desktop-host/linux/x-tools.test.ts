import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyCombo, pngSize, run, runBytes } from './x-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpd-xtools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('x-tools', () => {
  it('a failing command names the tool and subcommand, never the rest of the arguments (typed text)', async () => {
    const env = { PATH: process.env.PATH, DISPLAY: ':59999' }; // no such display
    const err = (await run('xdotool', ['type', '--', 'my secret text'], env).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/^xdotool type failed: /);
    expect(err.message).not.toContain('secret');
    const missing = (await run('no-such-tool-here', ['x', 'y'], env).catch((e: Error) => e)) as Error;
    expect(missing.message).toBe('no-such-tool-here x failed: ENOENT: not found on PATH');
  });

  it('maps the contract key names to X keysyms', () => {
    expect(keyCombo(['cmd', 'v'])).toBe('ctrl+v');
    expect(keyCombo(['Enter'])).toBe('Return');
    expect(keyCombo(['option', 'shift', 'F5'])).toBe('alt+shift+F5');
  });

  it('reads a PNG size from its header and refuses what is not a PNG', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    expect(pngSize(png)).toEqual({ width: 1, height: 1 });
    expect(() => pngSize(Buffer.from('not a png at all, really not'))).toThrow(/is not a PNG/);
  });

  it('runBytes kills the command at its timeout and at the signal, and says so', async () => {
    const env = { PATH: process.env.PATH };
    const slow = await runBytes('sleep', ['30'], env, { timeoutMs: 100, maxBytes: 1024 }).catch((e: Error) => e);
    expect(String(slow)).toMatch(/sleep failed: timed out after 100 ms; it was killed/);
    const ac = new AbortController();
    const stopped = runBytes('sleep', ['30'], env, { timeoutMs: 60_000, maxBytes: 1024, signal: ac.signal }).catch((e: Error) => e);
    ac.abort();
    expect(String(await stopped)).toMatch(/stopped \(the request was aborted or reached meta.timeoutMs\); it was killed/);
    const big = await runBytes('head', ['-c', '5000', '/dev/zero'], env, { timeoutMs: 10_000, maxBytes: 1000 }).catch((e: Error) => e);
    expect(String(big)).toMatch(/output passed 1000 bytes; it was killed/);
  });
});
