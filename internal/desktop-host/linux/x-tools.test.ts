import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyCombo, pngSize, run } from './x-tools.js';

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
    writeFileSync(join(dir, 'a.png'), png);
    expect(await pngSize(join(dir, 'a.png'))).toEqual({ width: 1, height: 1 });
    writeFileSync(join(dir, 'b.png'), 'not a png at all, really not');
    await expect(pngSize(join(dir, 'b.png'))).rejects.toThrow(/is not a PNG/);
  });
});
