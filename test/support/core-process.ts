import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ControlPlaneClient } from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { ControlCalls, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { CORE_NODE_FLAGS } from '../../internal/launch/core-node-flags.js';
import { MCPD, MCPDMCP } from './paths.js';
import { cmdline, killTagged, pidsWithTag, waitFor } from './procs.js';

/**
 * runtime.yaml when a test gives none: no metrics listener. The default (127.0.0.1:9464) is a fixed port
 * that parallel test files (and other checkouts on the machine) would race for.
 */
export const TEST_RUNTIME_YAML = 'metricsAddress: ""\n';

/**
 * Tests assert whole first listings, on a loaded two-core machine where a server's start can take longer
 * than the 3 s default listing budget: their cores wait up to this unless the test sets its own budget.
 */
const TEST_LISTING_BUDGET = 'listingBudgetSeconds: 60\n';

function withListingBudget(text: string): string {
  if (/^listingBudgetSeconds:/m.test(text)) return text;
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${TEST_LISTING_BUDGET}`;
}

/** The core's last startup log line (internal/core/app/bootstrap.ts), written once it serves and watches. */
const CORE_STARTED = '"event":"core started"';

/** One test's world: a temp profile store, a private socket, a tag on every process it starts. */
export class TestWorld {
  readonly tag = randomUUID();
  readonly dir = mkdtempSync(join(tmpdir(), 'mcpd-e2e-'));
  readonly socket = join(this.dir, 'run', 'control.sock');
  /** The profile store: `store` unless the test names it (a name with spaces or quotes, say). */
  readonly configDir: string;
  readonly cores: ChildProcess[] = [];
  readonly clients: Client[] = [];
  readonly coreLog: string[] = [];

  private controlClient: ControlPlaneClient | undefined;

  constructor(files: Record<string, string>, opts: { storeName?: string } = {}) {
    this.configDir = join(this.dir, opts.storeName ?? 'store');
    for (const [rel, text] of Object.entries({ 'runtime.yaml': TEST_RUNTIME_YAML, ...files })) this.write(rel, text);
  }

  /** The world's gRPC control-plane client: one, made on first use, closed by cleanup(). */
  control(): ControlPlaneClient {
    this.controlClient ??= createControlClient(this.socket);
    return this.controlClient;
  }

  /** Typed unary calls over control(). */
  calls(): ControlCalls {
    return new ControlCalls(this.control());
  }

  write(rel: string, text: string): void {
    if (rel === 'runtime.yaml') text = withListingBudget(text);
    const p = join(this.configDir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }

  /**
   * Waits for a core log line matching `pattern` (no /g flag) and returns it. Each chunk is scanned
   * once: a core that echoed a flood of server stderr has a log of hundreds of MB, which joining and
   * searching whole on every poll makes too slow under load (and past V8's longest string, impossible).
   */
  async waitForLogLine(what: string, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    let scanned = 0;
    let partial = '';
    let hit: string | undefined;
    const scan = () => {
      while (hit === undefined && scanned < this.coreLog.length) {
        const lines = (partial + this.coreLog[scanned++]).split('\n');
        partial = lines.pop() ?? '';
        hit = lines.find((l) => pattern.test(l));
      }
      return hit !== undefined;
    };
    await waitFor(what, scan, timeoutMs);
    return hit as string;
  }

  /**
   * The test's environment. MCPD_LOGIN_ENV=0: its cores do not ask the login shell of whoever runs the
   * tests (that user's profile is no part of a test); login-env.test.ts turns it on with a profile of its own.
   */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      MCPD_TEST_TAG: this.tag,
      MCPD_SOCKET: this.socket,
      MCPD_CONFIG: this.configDir,
      MCPD_LOGIN_ENV: '0',
      ...extra,
    };
  }

  /**
   * Starts a core and waits for its `core started` log line: its control plane answers and its store is
   * watched (an edit made right after this returns is seen; waiting only for the control plane let a
   * test edit the store before the watcher was ready, and the edit was never noticed). Needs the
   * default info log level.
   */
  async startCore(extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
    const core = spawn(process.execPath, [...CORE_NODE_FLAGS, MCPD, '--config', this.configDir, '--socket', this.socket], {
      env: this.env(extraEnv),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    core.stderr?.setEncoding('utf8');
    core.stderr?.on('data', (d: string) => this.coreLog.push(d));
    this.cores.push(core);
    let started = false;
    let tail = '';
    const onData = (d: string): void => {
      const text = tail + d;
      started = text.includes(CORE_STARTED);
      tail = text.slice(-CORE_STARTED.length);
      if (started) core.stderr?.off('data', onData);
    };
    core.stderr?.on('data', onData);
    await waitFor('the core to start', () => {
      if (core.exitCode !== null) throw new Error(`core exited with ${core.exitCode}: ${this.coreLog.join('')}`);
      return started;
    });
    return core;
  }

  /** An MCP client session through `mcpdmcp <caller>`. */
  async gateway(caller: string, args: string[] = [], capabilities: Record<string, unknown> = {}): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCPDMCP, caller, '--socket', this.socket, '--config', this.configDir, ...args],
      env: this.env() as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: `test-${caller}`, version: '1.0.0' }, { capabilities });
    await client.connect(transport);
    this.clients.push(client);
    return client;
  }

  pids(): number[] {
    return pidsWithTag(this.tag).filter((p) => p !== process.pid);
  }

  /** Closes clients, stops cores gracefully, then proves nothing with the tag is left. */
  async cleanup(): Promise<void> {
    this.controlClient?.close();
    for (const c of this.clients) await c.close().catch(() => {});
    // Cores this test started and any a gateway started on its own: stop them the way a user would.
    for (const pid of this.pids()) if (cmdline(pid).includes(MCPD)) process.kill(pid, 'SIGTERM');
    let leftover: number[] = [];
    try {
      await waitFor('every process of the test to exit', () => this.pids().length === 0, 15_000);
    } catch {
      leftover = killTagged(this.tag);
    }
    rmSync(this.dir, { recursive: true, force: true });
    if (leftover.length) throw new Error(`processes left behind: ${leftover.join(', ')}`);
  }
}
