import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { runCtl, signInAs, startOAuthFixture, storedSignIn, type OAuthFixture } from '../support/oauth-sign-in.js';
import { waitFor } from '../support/procs.js';

/**
 * What a lost sign-in looks like, against real OAuth-protected MCP servers made of the SDK's own
 * server parts (test/fixtures/servers/oauth-router.mjs: mcpAuthRouter, requireBearerAuth): never
 * signed in, revoked at the authorization server (RFC 7009), expired with no refresh token, and a
 * refresh that fails at the token endpoint. Each state is named in the call's error and in status;
 * such a server is left out of tool listings and comes back, with status cleared, once a request
 * goes through again.
 */
// Each state is a sign-in, a few calls and listings through real processes: generous on a loaded machine.
const STEPS_MS = 120_000;

describe('OAuth sign-in states: not signed in, revoked, expired, refresh failed', () => {
  let world: TestWorld;
  const fixtures: Record<string, OAuthFixture> = {};
  let client: Client;

  beforeAll(async () => {
    world = new TestWorld({ 'callers.yaml': 'callers:\n  dev: default\n' });
    fixtures.revocable = await startOAuthFixture(world, 'oauth-router.mjs');
    // Two-second access tokens: one server issues no refresh token, the other's token endpoint can fail.
    fixtures.shortlived = await startOAuthFixture(world, 'oauth-router.mjs', {
      OAUTH_ROUTER_ACCESS_SECONDS: '2',
      OAUTH_ROUTER_REFRESH: '0',
    });
    fixtures.outage = await startOAuthFixture(world, 'oauth-router.mjs', { OAUTH_ROUTER_ACCESS_SECONDS: '2' });
    const servers = Object.entries(fixtures).map(([name, f]) => `  - name: ${name}\n    url: ${f.mcp}\n    idleSeconds: 0\n`);
    world.write('profiles/default.yaml', `servers:\n${servers.join('')}`);
    await world.startCore();
    client = await world.gateway('dev');
  });
  afterAll(async () => {
    for (const f of Object.values(fixtures)) f.child.kill('SIGTERM');
    await world.cleanup();
  });

  const listed = async () => (await client.listTools()).tools.map((t) => t.name);
  const call = (server: string) => runCtl(world, ['call', 'dev', `${server}__whoami`]);
  const serverStatus = async (server: string) => (await runCtl(world, ['status', server])).stdout;

  it('before any sign-in: "not signed in yet", and the server is not listed', async () => {
    const r = await call('revocable');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server revocable needs sign-in (not signed in yet): run `mcpdctl auth revocable`');
    // What docs/auth.md shows a call print: the tool is not listed, and the error says why.
    expect(r.stderr).toMatch(
      /^mcpdctl: NOT_FOUND: no tool named "revocable__whoami" in profile "default"; list the tools to see the exposed names; servers that could not be listed: .*revocable: server revocable needs sign-in \(not signed in yet\): run `mcpdctl auth revocable`/,
    );
    expect(await listed()).not.toContain('revocable__whoami');
  });

  it(
    'revoked at the authorization server: the call says revoked, the tools leave the listing, status says why; a new sign-in clears it',
    async () => {
      await signInAs(world, 'revocable');
      const ok = await call('revocable');
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toMatch(/client=\S+ scope=mcp:tools/);
      await waitFor('revocable to be listed', async () => (await listed()).includes('revocable__whoami'));
      expect(await serverStatus('revocable')).not.toContain('last error');

      // The authorization server revokes the grant (RFC 7009: its refresh token and every access token of it).
      const rec = storedSignIn(world, 'revocable');
      const revoke = await fetch(new URL('/revoke', fixtures.revocable?.issuer), {
        method: 'POST',
        body: new URLSearchParams({ token: rec.tokens?.refresh_token ?? '', client_id: rec.clientInformation?.client_id ?? '' }),
      });
      expect(revoke.status).toBe(200);

      const r = await call('revocable');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'server revocable needs sign-in (revoked: the authorization server refused the refresh token (the token endpoint answered HTTP 400 invalid_grant: refresh token is revoked or unknown)): run `mcpdctl auth revocable`',
      );
      await waitFor('revocable to leave the listing', async () => !(await listed()).includes('revocable__whoami'));
      const st = await serverStatus('revocable');
      expect(st).toMatch(/ready/);
      expect(st).toMatch(/last error \(.*\): server revocable needs sign-in \(revoked: /);
      expect((await runCtl(world, ['status'])).stdout).toContain('needs sign-in (revoked');

      // Signed in again: calls work, the tools come back, status no longer shows the old error.
      await signInAs(world, 'revocable');
      const again = await call('revocable');
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
      await waitFor('revocable to be listed again', async () => (await listed()).includes('revocable__whoami'));
      const healed = await serverStatus('revocable');
      expect(healed).not.toContain('last error');
      expect(healed).toContain('error history'); // the history keeps what happened
    },
    STEPS_MS,
  );

  it(
    'expired with no refresh token: the call says expired, with when',
    async () => {
      await signInAs(world, 'shortlived');
      const rec = storedSignIn(world, 'shortlived');
      expect(rec.tokens?.refresh_token).toBeUndefined();
      const expiry = rec.tokensExpireAtUnixMs ?? 0;
      expect(expiry).toBeGreaterThan(0);
      // The event is the token's own expiry: wait until the clock has passed it.
      await waitFor('the access token to run out', () => Date.now() > expiry);
      const r = await call('shortlived');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `server shortlived needs sign-in (expired: the access token ran out at ${new Date(expiry).toISOString()} and the authorization server issued no refresh token)`,
      );
      expect(await serverStatus('shortlived')).toContain('needs sign-in (expired: ');
      expect(await listed()).not.toContain('shortlived__whoami');
    },
    STEPS_MS,
  );

  it(
    'a refresh the token endpoint fails: "refresh failed" with its answer; once it works again, calls go through and status clears',
    async () => {
      const outage = fixtures.outage as OAuthFixture;
      await signInAs(world, 'outage');
      const expiry = storedSignIn(world, 'outage').tokensExpireAtUnixMs ?? 0;
      await outage.command('refresh-outage on');
      await waitFor('the access token to run out', () => Date.now() > expiry);
      const r = await call('outage');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'server outage needs sign-in (refresh failed: the token endpoint answered HTTP 500 server_error: the token service is down for maintenance; the tokens are kept and the next request tries again)',
      );
      expect(await serverStatus('outage')).toContain('needs sign-in (refresh failed: ');
      expect(outage.log.join('')).toContain('refresh refused (outage)');

      await outage.command('refresh-outage off');
      const ok = await call('outage');
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      expect(outage.log.join('')).toContain('refreshed for ');
      expect(await serverStatus('outage')).not.toContain('last error');
      await waitFor('outage to be listed', async () => (await listed()).includes('outage__whoami'));
    },
    STEPS_MS,
  );
});
