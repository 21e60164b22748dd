import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { secretRedactor } from '../../shared/redactor.js';
import { OAuthStore } from './token-store.js';
import { StoredOAuthProvider } from './provider.js';
import type { ServerSpec } from '../model/spec.js';

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

  describe('refuses state another local user could have planted', () => {
    const planted = () => {
      const state = mkdtempSync(join(tmpdir(), 'mcpd-oauth-'));
      dirs.push(state);
      const store = OAuthStore.inStateDir(state);
      mkdirSync(store.dir, { mode: 0o700 });
      return store;
    };
    const record = JSON.stringify({ tokens: { access_token: 'planted', token_type: 'Bearer' } });

    it('a file owned by another user', () => {
      const store = planted();
      writeFileSync(store.file(FP), record, { mode: 0o600 });
      chownSync(store.file(FP), 65534, 65534);
      expect(() => store.read(FP)).toThrow(/OAuth state .* cannot be trusted: it is owned by uid 65534.*remove it and sign in again/);
      expect(() => store.update(FP, (r) => r)).toThrow(/owned by uid 65534/);
    });

    it('a file every user can write, a symbolic link, a FIFO', () => {
      const store = planted();
      writeFileSync(store.file(FP), record, { mode: 0o600 });
      chmodSync(store.file(FP), 0o666);
      expect(() => store.read(FP)).toThrow(/writable by every user/);
      rmSync(store.file(FP));
      writeFileSync(join(store.dir, 'elsewhere.json'), record, { mode: 0o600 });
      symlinkSync(join(store.dir, 'elsewhere.json'), store.file(FP));
      expect(() => store.read(FP)).toThrow(/is a symbolic link/);
      rmSync(store.file(FP));
      execFileSync('mkfifo', [store.file(FP)]);
      expect(() => store.read(FP)).toThrow(/not a regular file/); // and does not block on it
    });

    it('a directory another user owns or every user can write', () => {
      const store = planted();
      chmodSync(store.dir, 0o777);
      expect(() => store.read(FP)).toThrow(/OAuth state directory .* is not private: it is writable by every user/);
      chmodSync(store.dir, 0o700);
      chownSync(store.dir, 65534, 65534);
      expect(() => store.read(FP)).toThrow(/owned by uid 65534/);
      expect(() => store.update(FP, (r) => r)).toThrow(/owned by uid 65534/);
    });

    it('never takes endpoints from the file: a stored token_endpoint is discovered anew', () => {
      const store = planted();
      const discoveryState = {
        authorizationServerUrl: 'https://evil.example',
        authorizationServerMetadata: { issuer: 'https://evil.example', token_endpoint: 'https://evil.example/token' },
      };
      writeFileSync(store.file(FP), JSON.stringify({ discoveryState }), { mode: 0o600 });
      const spec = { name: 'remote', url: 'https://mcp.example/mcp' } as ServerSpec;
      const provider = new StoredOAuthProvider(spec, FP, store);
      expect(provider.discoveryState()).toBeUndefined();
      const found = { authorizationServerUrl: 'https://auth.example' };
      provider.saveDiscoveryState(found);
      expect(provider.discoveryState()).toEqual(found);
      expect(new StoredOAuthProvider(spec, FP, store).discoveryState()).toBeUndefined();
    });
  });
});
