// mcp-hub 4.2.1 (github.com/ravitemer/mcp-hub), a peer measured side by side with mcpd in bench/run.mjs.
// Installed by the benchmark on first use into .tmp/mcp-hub (like the conformance suite into
// .tmp/conformance), never a dependency of mcpd. Started on a free loopback port (bench/loopback-listen.mjs)
// with a private state dir; MCP clients reach its servers through its `/mcp` endpoint (SSE transport).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, childrenMatching } from './lib.mjs';

export const MCP_HUB_VERSION = '4.2.1';
const CACHE = join(REPO, '.tmp/mcp-hub');
const CLI = join(CACHE, 'node_modules/mcp-hub/dist/cli.js');
const LOOPBACK = join(REPO, 'bench/loopback-listen.mjs');

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(CACHE, 'node_modules/mcp-hub/package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** Installs mcp-hub into the cache dir unless that version is there; returns its CLI path. */
export function installMcpHub() {
  if (installedVersion() !== MCP_HUB_VERSION) {
    process.stderr.write(`bench: installing mcp-hub@${MCP_HUB_VERSION} into ${CACHE}\n`);
    execFileSync(
      'npm',
      ['install', '--prefix', CACHE, '--no-save', '--no-audit', '--no-fund', '--loglevel=error', `mcp-hub@${MCP_HUB_VERSION}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  if (!existsSync(CLI) || installedVersion() !== MCP_HUB_VERSION) {
    throw new Error(`mcp-hub@${MCP_HUB_VERSION} is not at ${CLI} after npm install`);
  }
  return CLI;
}

function freeLoopbackPort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts mcp-hub with `servers` (its `mcpServers` config) and waits until every server is connected.
 * `marker`: a string of the servers' command lines, to check that stopping the hub leaves none behind.
 */
export async function startMcpHub(servers, marker) {
  const cli = installMcpHub();
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-bench-hub-'));
  const config = join(dir, 'mcp-hub.json');
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const port = await freeLoopbackPort();
  // XDG_STATE_HOME/HOME: its logs and workspace cache go to the temp dir, not the user's home.
  const hub = spawn(process.execPath, ['--import', LOOPBACK, cli, '--port', String(port), '--config', config], {
    env: { ...process.env, HOME: dir, XDG_STATE_HOME: dir, XDG_CONFIG_HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const all = Object.keys(servers).length;
  await new Promise((resolve, reject) => {
    const onData = (d) => {
      log += d;
      if (log.includes(`${all}/${all} servers started successfully`)) resolve();
      else if (/servers started successfully","data":\{"total":\d+,"successful":\d+,"failed":[1-9]/.test(log))
        reject(new Error(`mcp-hub could not start every server:\n${log}`));
    };
    hub.stdout.on('data', onData);
    hub.stderr.on('data', onData);
    hub.once('exit', (code) => reject(new Error(`mcp-hub exited (${code}) before its servers were up:\n${log}`)));
  });
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    pid: hub.pid,
    async connect() {
      const client = new Client({ name: 'bench', version: '1' });
      // undici's fetch leaves each POST's abort listener on the transport's one signal until a GC
      // collects the request: thousands pile up in a run, and every new listener walks that list —
      // the client's cost, not mcp-hub's. POSTs go without the signal (closing still ends the stream).
      const fetchPost = (url, init) => fetch(url, init?.method === 'POST' ? { ...init, signal: undefined } : init);
      await client.connect(new SSEClientTransport(this.url, { fetch: fetchPost }));
      return client;
    },
    async stop() {
      const kids = childrenMatching(hub.pid, marker);
      hub.kill('SIGTERM');
      await new Promise((r) => (hub.exitCode !== null || hub.signalCode !== null ? r() : hub.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
      // mcp-hub signals its servers and exits without waiting for them: give them a moment to go.
      const until = Date.now() + 5000;
      let left = kids;
      while ((left = left.filter((pid) => existsSync(`/proc/${pid}`))).length > 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      if (left.length > 0) {
        for (const pid of left) process.kill(pid, 'SIGKILL');
        throw new Error(`mcp-hub left its servers running 5 s after it exited (killed now): ${left.join(', ')}`);
      }
    },
  };
}
