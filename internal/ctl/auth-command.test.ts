import { describe, expect, it } from 'vitest';
import type { Profile, ProfileStore } from '../contract/model/profile.js';
import { DEFAULT_NAMESPACE } from '../contract/model/profile.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { httpSpec } from '../../test/support/server-specs.js';
import { pickServer } from './auth-command.js';

const spec = httpSpec;

function profile(name: string, servers: ServerSpec[]): Profile {
  return { name, file: `/s/profiles/${name}.yaml`, servers, inputs: [], namespace: DEFAULT_NAMESPACE };
}

function store(profiles: Profile[], callers: Record<string, string>): ProfileStore {
  return {
    dir: '/s',
    profiles: new Map(profiles.map((p) => [p.name, p])),
    callers: new Map(Object.entries(callers)),
  } as unknown as ProfileStore;
}

describe('mcpdctl auth: which server', () => {
  const a = spec('remote', 'https://a.example/mcp');
  const b = spec('remote', 'https://b.example/mcp');

  it('takes the only definition, or the same one shared by several profiles', () => {
    expect(pickServer(store([profile('default', [a]), profile('dev', [{ ...a }])], {}), 'remote', undefined).url).toBe(a.url);
  });

  it('asks for --caller when profiles define different servers of that name, and follows it', () => {
    const s = store([profile('default', [a]), profile('dev', [b])], { vscode: 'dev' });
    expect(() => pickServer(s, 'remote', undefined)).toThrow(
      'profiles default, dev each define a different server remote; say which with --caller NAME',
    );
    expect(pickServer(s, 'remote', 'vscode').url).toBe(b.url);
    expect(pickServer(s, 'remote', 'someone-else').url).toBe(a.url);
  });

  it('names what is missing', () => {
    const s = store([profile('default', [a]), profile('dev', [])], { vscode: 'dev' });
    expect(() => pickServer(s, 'nope', undefined)).toThrow('no profile in /s has a server nope');
    expect(() => pickServer(s, 'remote', 'vscode')).toThrow('profile dev (caller vscode) has no server remote');
  });
});
