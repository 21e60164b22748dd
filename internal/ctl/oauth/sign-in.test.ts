import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../contract/model/spec.js';
import { httpSpec } from '../../../test/support/server-specs.js';
import { signIn } from './sign-in.js';
import { OAuthStore } from '../../contract/oauth/token-store.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const spec = (url: string): ServerSpec => httpSpec('open', url);

async function listen(s: Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  cleanups.push(() => s.close());
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/mcp`;
}

describe('signIn', () => {
  it('says so when the server never asks for a token and publishes no OAuth metadata', async () => {
    const url = await listen(createServer((req, res) => res.writeHead(req.method === 'POST' ? 200 : 404).end('{}')));
    const dir = mkdtempSync(join(tmpdir(), 'mcpd-signin-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const shown: URL[] = [];
    await expect(
      signIn(spec(url), 'b'.repeat(64), new OAuthStore(dir), { timeoutMs: 5000, showUrl: (u) => shown.push(u) }),
    ).rejects.toThrow(/server open answered without asking for sign-in and publishes no usable OAuth metadata/);
    expect(shown).toEqual([]);
  });

  it('refuses stdio servers with a clear message', async () => {
    const s: ServerSpec = { ...spec('http://127.0.0.1:1/mcp'), transport: 'stdio', url: undefined, cmd: ['node'] };
    await expect(signIn(s, 'c'.repeat(64), new OAuthStore('/nonexistent'), { timeoutMs: 1000, showUrl: () => {} })).rejects.toThrow(
      'server open uses transport stdio: only streamable_http and sse servers sign in',
    );
  });
});
