import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { DIST, FIXTURES, MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);
const NOT_FOUND = /cannot start server bad: "nodee" in .*: command not found \(check "cmd" and PATH\)/;

/** A server whose command does not exist, a healthy one, and mcpd-docs (resources only, no tools). */
describe('failures are visible where people look', () => {
  let world: TestWorld;
  const ctl = async (...args: string[]) =>
    run(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], { env: world.env() }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  beforeAll(async () => {
    const bad = '  - name: bad\n    cmd: [nodee, x.js]\n';
    const docs = `  - name: docs\n    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(DIST, 'cmd/mcpd-docs/main.js'))}, ${JSON.stringify(join(FIXTURES, 'docs'))}]\n    idleSeconds: 300\n`;
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 }), bad, docs),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('mcpdctl tools prints a warning line per failed server, with the full error', async () => {
    const r = await ctl('tools', 'someone');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fx__echo/);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: server bad could not be listed, its tools are missing: /);
    expect(warnings[0]).toMatch(NOT_FOUND);
    // A server without the tools capability has no tools; it has not failed.
    expect(r.stderr).not.toMatch(/docs|Method not found/);
  });

  it('the MCP client gets one warning log message naming the server and why', async () => {
    const client = await world.gateway('someone');
    const messages: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('fx__echo');
    await waitFor('the warning about bad', () => messages.some((m) => JSON.stringify(m.data).includes('server bad could not be listed')));
    await client.listTools();
    await client.ping();
    const aboutBad = messages.filter((m) => JSON.stringify(m.data).includes('server bad could not be listed'));
    expect(aboutBad).toHaveLength(1);
    expect(aboutBad[0]?.level).toBe('warning');
    expect(JSON.stringify(aboutBad[0]?.data)).toMatch(/command not found/);
    expect(messages.some((m) => JSON.stringify(m.data).includes('Method not found'))).toBe(false);
  });

  it('mcpdctl status <server> shows the untruncated error and its history', async () => {
    const r = await ctl('status', 'bad');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/last error \(.*\): cannot start server bad: "nodee" in .*: command not found \(check "cmd" and PATH\)\n/);
    expect(r.stdout).toMatch(/error history \(oldest first\):\n\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+cannot start server bad/);
    const none = await ctl('status', 'nosuch');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no server named "nosuch".*servers: bad, docs, fx/);
  });
});
