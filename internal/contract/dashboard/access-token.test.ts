import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HANDOFF_WINDOW_MS,
  newAccessToken,
  readDashboardRecord,
  removeDashboardRecord,
  sha256,
  takeHandoff,
  tokenMatches,
  writeDashboardRecord,
  writeHandoff,
} from './access-token.js';

describe('dashboard access token', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = join(mkdtempSync(join(tmpdir(), 'mcpd-token-')), 'state');
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(join(d, '..'), { recursive: true, force: true });
  });

  it('is random, 256 bits, and compared in constant time', () => {
    const a = newAccessToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newAccessToken()).not.toBe(a);
    expect(tokenMatches(a, a)).toBe(true);
    expect(tokenMatches(`${a}x`, a)).toBe(false);
    expect(tokenMatches(undefined, a)).toBe(false);
    expect(tokenMatches('', a)).toBe(false);
  });

  it('is published in a 0700 directory as a 0600 file; removed only by its owner', () => {
    const d = dir();
    writeDashboardRecord(d, { url: 'http://127.0.0.1:1', token: 't1', pid: 1 });
    expect(statSync(d).mode & 0o777).toBe(0o700);
    expect(statSync(join(d, 'dashboard.json')).mode & 0o777).toBe(0o600);
    expect(readDashboardRecord(d)).toEqual({ url: 'http://127.0.0.1:1', token: 't1', pid: 1 });
    removeDashboardRecord(d, 'another core');
    expect(readDashboardRecord(d).token).toBe('t1');
    removeDashboardRecord(d, 't1');
    expect(() => readDashboardRecord(d)).toThrow(
      /no dashboard is published in .*: no core runs on this socket, or its runtime.yaml metricsAddress is empty/,
    );
  });

  it('says what to do with a damaged record', () => {
    const d = dir();
    writeDashboardRecord(d, { url: 'u', token: 't', pid: 1 });
    writeFileSync(join(d, 'dashboard.json'), '{"url": 1}');
    expect(() => readDashboardRecord(d)).toThrow(/lacks url\/token\/pid; restart the core/);
    writeFileSync(join(d, 'dashboard.json'), '{');
    expect(() => readDashboardRecord(d)).toThrow(/is unreadable .*restart the core/);
  });

  it("hands the open pages' logins to the next core once, within the window", () => {
    const d = dir();
    writeDashboardRecord(d, { url: 'u', token: 'old', pid: 1 });
    const logins = [{ sha256: sha256('page'), expires: 5000 }];
    writeHandoff(d, logins, 1000);
    expect(takeHandoff(d, 2000)).toEqual({ logins, until: 1000 + HANDOFF_WINDOW_MS });
    expect(takeHandoff(d, 2000)).toBeUndefined(); // taken
    writeHandoff(d, logins, 1000);
    expect(takeHandoff(d, 1000 + HANDOFF_WINDOW_MS + 1)).toBeUndefined(); // expired
  });
});
