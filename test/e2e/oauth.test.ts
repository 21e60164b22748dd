import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES, MCPDCTL } from '../support/paths.js';
import { exitOf, firstLine, runCtl, type Ran } from '../support/oauth-sign-in.js';

const FIXTURE = join(FIXTURES, 'servers/oauth-protected.mjs');

/**
 * The whole sign-in against a local OAuth-protected MCP server (test/fixtures/servers/oauth-protected.mjs):
 * a call fails naming `mcpdctl auth`; `mcpdctl auth` discovers, registers, and sends the "browser" (an
 * HTTP client following redirects) to the authorization URL; the redirect lands on its loopback
 * listener; the core then uses, and refreshes, the stored tokens.
 */
describe('OAuth sign-in to a remote server through mcpdctl auth', () => {
  let world: TestWorld;
  let fixture: ChildProcess;
  const fixtureLog: string[] = [];
  let mcpUrl = '';
  let issuerUrl = '';

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers:\n  dev: default\n' });
    // Each access token is good for 6 requests: the calls below outlive the first one, so the core must refresh.
    fixture = spawn(process.execPath, [FIXTURE], { env: world.env({ OAUTH_FIXTURE_TOKEN_USES: '6' }), stdio: ['ignore', 'pipe', 'pipe'] });
    fixture.stderr?.setEncoding('utf8').on('data', (d: string) => fixtureLog.push(d));
    const { mcp, issuer } = JSON.parse(await firstLine(fixture)) as { mcp: string; issuer: string };
    mcpUrl = mcp;
    issuerUrl = issuer;
    world.write('profiles/default.yaml', `servers:\n  - name: remote\n    url: ${mcp}\n    idleSeconds: 0\n`);
    await world.startCore();
  });
  afterAll(async () => {
    fixture?.kill('SIGTERM');
    await world.cleanup();
  });

  const ctl = (args: string[]): Promise<Ran> => runCtl(world, args);

  it('a call before sign-in fails with an error naming the command to run', async () => {
    const r = await ctl(['call', 'dev', 'remote__whoami']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server remote needs sign-in (not signed in yet): run `mcpdctl auth remote`');
    // The core registered no client on its own: that is for mcpdctl auth to do.
    expect(fixtureLog.join('')).not.toContain('registered');
  });

  it('mcpdctl auth signs in through the browser step and the loopback redirect; calls then work and tokens refresh', async () => {
    const auth = spawn(process.execPath, [MCPDCTL, '--socket', world.socket, 'auth', 'remote', '--no-open', '--wait', '60'], {
      env: world.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let authErr = '';
    auth.stderr?.setEncoding('utf8').on('data', (d: string) => (authErr += d));
    const url = new URL(await firstLine(auth));
    expect(url.pathname).toBe('/authorize');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(url.searchParams.get('scope')).toBe('mcp:tools'); // from the server's WWW-Authenticate
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    // The headless browser: the authorization server approves and redirects to mcpdctl's listener.
    const page = await fetch(url, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in');
    expect(await exitOf(auth)).toBe(0);
    expect(authErr).toContain('signed in to remote (scope "mcp:tools")');

    // Tokens: one 0600 file per spec fingerprint in a 0700 directory of the state directory.
    const dir = join(world.configDir, '.mcpd-state', 'oauth');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
    const [file = ''] = files;
    expect(file).toMatch(/^[0-9a-f]{64}\.json$/);
    expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    const first = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { tokens: { access_token: string; refresh_token: string } };

    for (let i = 0; i < 4; i++) {
      const r = await ctl(['call', 'dev', 'remote__whoami']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/client=client-[A-Za-z0-9_-]+ scope=mcp:tools/);
    }
    expect(fixtureLog.join('')).toContain('refreshed for client-');
    const after = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { tokens: { access_token: string; refresh_token: string } };
    expect(after.tokens.refresh_token).not.toBe(first.tokens.refresh_token);

    // No token reached a log.
    const logs = world.coreLog.join('') + authErr;
    for (const t of [first.tokens.access_token, first.tokens.refresh_token, after.tokens.access_token, after.tokens.refresh_token]) {
      expect(logs).not.toContain(t);
    }
  });

  it('a token_endpoint planted in the stored state receives nothing: endpoints are discovered anew', async () => {
    const captured: string[] = [];
    const trap = createServer((req, res) => {
      captured.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    try {
      const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
      const dir = join(world.configDir, '.mcpd-state', 'oauth');
      const [file = ''] = readdirSync(dir).filter((f) => f.endsWith('.json'));
      const rec = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      rec.discoveryState = {
        authorizationServerUrl: trapUrl,
        authorizationServerMetadata: {
          issuer: trapUrl,
          authorization_endpoint: new URL('/authorize', issuerUrl).href, // the real one: the browser step works
          token_endpoint: `${trapUrl}/token`, // where the code and PKCE verifier would go
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        },
      };
      writeFileSync(join(dir, file), JSON.stringify(rec), { mode: 0o600 });

      const auth = spawn(process.execPath, [MCPDCTL, '--socket', world.socket, 'auth', 'remote', '--no-open', '--wait', '60'], {
        env: world.env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let authErr = '';
      auth.stderr?.setEncoding('utf8').on('data', (d: string) => (authErr += d));
      const exited = exitOf(auth);
      const url = new URL(await firstLine(auth));
      expect(url.origin).toBe(new URL(issuerUrl).origin);
      await fetch(url, { redirect: 'follow' });
      expect(await exited).toBe(0);
      expect(authErr).toContain('signed in to remote');
      expect(captured).toEqual([]);
    } finally {
      trap.close();
    }
  });

  it("mcpdctl auth does not take the current directory's store, nor run its command inputs", async () => {
    const repo = join(world.dir, 'cloned-repo');
    const marker = join(world.dir, 'PWNED-auth');
    mkdirSync(join(repo, 'profiles'), { recursive: true });
    writeFileSync(
      join(repo, 'profiles/default.yaml'),
      [
        'inputs:',
        '  - id: x',
        '    type: command',
        `    command: sh -c 'touch ${marker} && echo v'`,
        'servers:',
        '  - name: remote',
        `    url: ${mcpUrl}`,
        '    headers: { X: "${input:x}" }',
        '',
      ].join('\n'),
    );
    const home = join(world.dir, 'home-auth');
    const env = { ...world.env({ HOME: home, XDG_CONFIG_HOME: join(home, '.config') }), MCPD_CONFIG: '' };
    const child = spawn(process.execPath, [MCPDCTL, '--socket', join(world.dir, 'no-core.sock'), 'auth', 'remote', '--no-open'], {
      env,
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    expect(await exitOf(child)).not.toBe(0);
    expect(stderr).not.toContain(repo);
    expect(existsSync(marker)).toBe(false);
  });
});
