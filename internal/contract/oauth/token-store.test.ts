import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { secretRedactor } from '../../shared/redactor.js';
import { OAuthStore } from './token-store.js';

const FP = 'a'.repeat(64);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('OAuthStore', () => {
  it('keeps one 0600 file per fingerprint in a 0700 directory, and masks the tokens it sees', () => {
    const state = mkdtempSync(join(tmpdir(), 'mcpd-oauth-'));
    dirs.push(state);
    const store = OAuthStore.inStateDir(state);
    expect(store.read(FP)).toEqual({});
    store.update(FP, (r) => ({ ...r, tokens: { access_token: 'access-abc-123', refresh_token: 'refresh-xyz-789', token_type: 'Bearer' } }));
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file(FP)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store.file(FP), 'utf8')).tokens.access_token).toBe('access-abc-123');
    expect(secretRedactor.text('Bearer access-abc-123, refresh refresh-xyz-789')).toBe('Bearer ***, refresh ***');
    // A store reload replaces the store's secrets, not the tokens.
    secretRedactor.use([]);
    expect(secretRedactor.text('access-abc-123')).toBe('***');
  });

  it('reads a damaged file as empty (a new sign-in fixes it) and refuses a path that is no fingerprint', () => {
    const state = mkdtempSync(join(tmpdir(), 'mcpd-oauth-'));
    dirs.push(state);
    const store = OAuthStore.inStateDir(state);
    store.update(FP, (r) => r);
    writeFileSync(store.file(FP), '{ not json');
    expect(store.read(FP)).toEqual({});
    expect(() => store.file('../../etc/passwd')).toThrow('not a spec fingerprint');
  });
});
