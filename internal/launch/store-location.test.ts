import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultStoreDir, userStoreDir } from './store-location.js';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcpd-loc-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('which store without --config', () => {
  it('is the current directory when it holds a store (profiles/ or callers.yaml)', () => {
    const a = temp();
    mkdirSync(join(a, 'profiles'));
    expect(defaultStoreDir({ HOME: '/h' }, a)).toBe(a);
    const b = temp();
    writeFileSync(join(b, 'callers.yaml'), 'callers: {}\n');
    expect(defaultStoreDir({ HOME: '/h' }, b)).toBe(b);
  });

  it('is the XDG config directory otherwise', () => {
    const empty = temp();
    expect(defaultStoreDir({ HOME: '/home/jane' }, empty)).toBe('/home/jane/.config/mcpd');
    expect(defaultStoreDir({ HOME: '/home/jane', XDG_CONFIG_HOME: '/cfg' }, empty)).toBe('/cfg/mcpd');
    expect(userStoreDir({ HOME: '/home/jane' })).toBe('/home/jane/.config/mcpd');
  });
});
