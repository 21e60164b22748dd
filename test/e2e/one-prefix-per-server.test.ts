import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sha256Hex } from '../../internal/contract/model/naming.js';
import { TestWorld } from '../support/core-process.js';
import { everythingServer, profile } from '../support/profiles.js';

// 40 characters: `<server>__echo` fits 64, `<server>__trigger-long-running-operation` does not. The first 20
// characters end in a dash, where a prefix cut per tool used to leave `--`.
const SERVER = 'acme-internal-tools-everything-test-srv1';
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content);

describe('through mcpdmcp, a long-named server with tools of different lengths shows ONE prefix', () => {
  let world: TestWorld;
  let client: Client;

  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(everythingServer(SERVER, { idleSeconds: 300 })) });
    await world.startCore();
    client = await world.gateway('prefix-test');
  }, 120_000);
  afterAll(async () => {
    await world.cleanup();
  });

  it('lists every tool under one prefix, without `--`, each name within 64 and valid', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(5);
    const prefixes = new Set(names.map((n) => n.slice(0, n.indexOf('__'))));
    expect([...prefixes]).toHaveLength(1);
    const [prefix = ''] = prefixes;
    expect(prefix.startsWith('acme-internal-tools')).toBe(true);
    expect(prefix.endsWith(`-${sha256Hex(SERVER).slice(0, 8)}`)).toBe(true);
    for (const n of names) {
      expect(n).not.toContain('--');
      expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
    expect(names).toContain(`${prefix}__echo`);
    expect(names).toContain(`${prefix}__trigger-long-running-operation`);
  });

  it('routes the prefixed names back to the server and its tool', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const echo = names.find((n) => n.endsWith('__echo')) ?? '';
    expect(text(await client.callTool({ name: echo, arguments: { message: 'one prefix' } }))).toContain('one prefix');
    const sum = names.find((n) => n.endsWith('__get-sum')) ?? '';
    expect(text(await client.callTool({ name: sum, arguments: { a: 2, b: 3 } }))).toContain('5');
  });
});
