// One client scenario of `@modelcontextprotocol/conformance client`, with mcpd's downstream client as
// the client under test: run by scripts/conformance-client.mjs in its own process, or by
// scripts/conformance-client-driver.mjs for each scenario of a run.
//
// It writes a store whose one profile points a streamable_http server at the scenario's URL (with the
// pre-registered client of MCP_CONFORMANCE_CONTEXT when the scenario gives one), starts `mcpd` on a
// private socket, connects an MCP client to `mcpdmcp conformance` on stdio, lists the tools and calls
// each one. When a request fails with mcpd's sign-in error it runs `mcpdctl auth conformance --no-open`
// and plays the browser: it follows the printed authorization URL with plain HTTP redirects back to
// mcpdctl's loopback listener. At most MAX_SIGN_INS sign-ins, so a server that never accepts a token
// cannot loop us. Everything started is stopped before it returns. 0 = listing and calls succeeded.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist/cmd');
const MAX_SIGN_INS = 3;
/** The metadata document URL the suite's CIMD scenario expects as client_id. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

let modules;
/**
 * The MCP SDK and the core's control client, loaded once per process: a driver running many scenarios
 * pays for them once (each costs a second or more of CPU on a loaded machine).
 */
function clientModules() {
  modules ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import(join(ROOT, 'dist/internal/contract/grpc/control-client.js')),
  ]).then(([{ Client }, { StdioClientTransport }, types, control]) => ({ Client, StdioClientTransport, types, control }));
  return modules;
}

/**
 * Runs the scenario whose server is at `url`. `context`: MCP_CONFORMANCE_CONTEXT's text, if any;
 * `output` takes what the client under test writes on stderr (its own log lines and the stderr of the
 * core, gateway and mcpdctl it starts, which the suite keeps per scenario); `signal` aborting stops
 * everything the scenario started (and so ends it).
 */
export async function runScenario({ url, context, output, signal }) {
  const log = (m) => output(`conformance-client: ${m}\n`);
  const scenario = new Scenario(url, context ? JSON.parse(context) : {}, output, log);
  const onAbort = () => void scenario.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  let failure;
  try {
    if (!signal?.aborted) return await scenario.run();
  } catch (e) {
    failure = e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await scenario.stop();
  }
  // Last, after the core's and gateway's farewells: the suite's summary quotes the last lines.
  log(signal?.aborted ? `stopped: ${signal.reason}` : `failed: ${failure?.stack ?? failure}`);
  return 1;
}

class Scenario {
  children = [];
  client;
  stopping;

  constructor(url, context, output, log) {
    this.url = url;
    this.context = context;
    this.output = output;
    this.log = log;
    this.work = mkdtempSync(join(tmpdir(), 'mcpd-conformance-client-'));
    this.socket = join(this.work, 'run', 'control.sock');
  }

  async run() {
    const store = join(this.work, 'store');
    mkdirSync(join(store, 'profiles'), { recursive: true });
    writeFileSync(join(store, 'callers.yaml'), 'callers: {}\n');
    // No metrics listener: its default is a fixed port (127.0.0.1:9464) that parallel runs would race for.
    // A first listing waits for the scenario's server however loaded the machine (the default budget is 3 s).
    writeFileSync(join(store, 'runtime.yaml'), 'metricsAddress: ""\nlistingBudgetSeconds: 60\n');
    writeFileSync(join(store, 'profiles', 'default.yaml'), this.profileYaml());
    const core = this.start('mcpd', ['--config', store, '--socket', this.socket]);
    // The modules load while the core starts.
    this.modules = await clientModules();
    const { Client, StdioClientTransport, types } = this.modules;
    await this.waitForSocket(core);
    const gateway = new StdioClientTransport({
      command: process.execPath,
      args: [join(DIST, 'mcpdmcp/main.js'), 'conformance', '--socket', this.socket, '--no-autostart'],
      env: { ...process.env },
      stderr: 'pipe',
    });
    this.forward(gateway.stderr);
    this.client = new Client(
      { name: 'mcpd-conformance-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: { applyDefaults: true } } } },
    );
    // Accept every elicitation with nothing filled in: the SDK fills the schema's defaults (SEP-1034).
    this.client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
    await this.client.connect(gateway);
    return await this.drive(this.client);
  }

  profileYaml() {
    const oauth = [`clientMetadataUrl: ${JSON.stringify(CLIENT_METADATA_URL)}`];
    if (this.context.client_id) oauth.push(`clientId: ${JSON.stringify(this.context.client_id)}`);
    if (this.context.client_secret) oauth.push(`clientSecret: ${JSON.stringify(this.context.client_secret)}`);
    return [
      '# The suite names tools without a prefix.',
      'namespace: { mode: never }',
      'servers:',
      '  - name: conformance',
      '    transport: streamable_http',
      `    url: ${JSON.stringify(this.url)}`,
      `    oauth: { ${oauth.join(', ')} }`,
      '',
    ].join('\n');
  }

  /** List, then call every tool; a sign-in error → mcpdctl auth, then the same step again. */
  async drive(c) {
    let signIns = 0;
    let signedInAt = 0;
    const step = async (what, fn) => {
      for (;;) {
        try {
          return await fn();
        } catch (e) {
          const msg = String(e?.message ?? e);
          if (!msg.includes('mcpdctl auth') || signIns >= MAX_SIGN_INS) throw e;
          signIns++;
          this.log(`${what} needs sign-in (${signIns}/${MAX_SIGN_INS}): ${msg}`);
          await this.signIn();
          signedInAt = Date.now();
        }
      }
    };
    const tools = await step('tools/list', () => this.listServerTools(c, () => signedInAt));
    this.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
    for (const t of tools) {
      const r = await step(`tools/call ${t.name}`, () => c.callTool({ name: t.name, arguments: argumentsFor(t.inputSchema) }));
      if (r.isError) throw new Error(`tool ${t.name} failed: ${JSON.stringify(r.content)}`);
      this.log(`called ${t.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
    }
    return 0;
  }

  /**
   * The server's tools (mcpd adds tools of its own, mcpd_*). An empty list means the core could not
   * list the server: its status then says why — or, right after a sign-in, the core is still listing
   * it, and the gateway's tools/list_changed says when it is done.
   */
  async listServerTools(c, signedInAt) {
    let changed = () => {};
    c.setNotificationHandler(this.modules.types.ToolListChangedNotificationSchema, () => changed());
    const until = Date.now() + 90_000;
    for (;;) {
      const next = new Promise((resolve) => (changed = resolve));
      const page = await c.listTools();
      const listed = page.tools.filter((t) => !t.name.startsWith('mcpd_'));
      if (listed.length > 0) return listed;
      const why = await this.whyEmpty(signedInAt());
      if (why) throw new Error(why);
      // Still starting past the listing budget: the core names it pending, and list_changed follows.
      const pending = (page._meta?.['mcpd/pending'] ?? []).length > 0;
      // No sign-in yet, nothing pending and no error: the server has no tools.
      if ((signedInAt() === 0 && !pending) || Date.now() > until) return listed;
      // No error since the sign-in: the core is listing the server. Wait for that (or look again shortly).
      await Promise.race([next, sleep(500)]);
    }
  }

  /**
   * The pools' errors newer than `since` (the core's status, over the control socket in this process:
   * an `mcpdctl status` per look cost a Node start each, in every scenario), or nothing.
   */
  async whyEmpty(since) {
    const { ControlCalls, createControlClient } = this.modules.control;
    const control = createControlClient(this.socket);
    try {
      const { pools } = await new ControlCalls(control).status();
      return pools
        .filter((p) => p.lastError && p.lastErrorAtUnixMs > since)
        .map((p) => p.lastError)
        .join('; ');
    } finally {
      control.close();
    }
  }

  /** `mcpdctl auth conformance --no-open`, with this process as the browser. */
  async signIn() {
    const child = this.start('mcpdctl', ['--socket', this.socket, 'auth', 'conformance', '--no-open', '--wait', '60'], 'pipe');
    const authUrl = await firstLine(child.stdout);
    if (!authUrl) throw new Error('mcpdctl auth printed no authorization URL');
    // The suite's authorization server approves at once and redirects to the loopback callback.
    const res = await fetch(authUrl, { redirect: 'follow' });
    await res.text();
    const exit = await exited(child);
    if (exit !== 0) throw new Error(`mcpdctl auth exited with ${exit}`);
  }

  start(bin, args, stdout = 'ignore') {
    if (this.stopping) throw new Error('the scenario is stopping');
    const child = spawn(process.execPath, [join(DIST, bin, 'main.js'), ...args], {
      env: process.env,
      stdio: ['ignore', stdout, 'pipe'],
    });
    this.forward(child.stderr);
    this.children.push(child);
    return child;
  }

  forward(stream) {
    stream?.setEncoding('utf8').on('data', (text) => this.output(text));
  }

  /** The core creates its socket when it is ready; it exiting first is a failure. */
  async waitForSocket(core) {
    for (let i = 0; i < 600; i++) {
      if (existsSync(this.socket)) return;
      if (core.exitCode !== null) throw new Error(`mcpd exited with ${core.exitCode} before opening ${this.socket}`);
      await sleep(50); // polling a file the core creates: there is no event to wait on from outside
    }
    throw new Error(`mcpd did not open ${this.socket} within 30 s`);
  }

  /** Idempotent: a second call (the abort, then the scenario's own end) waits for the first. */
  stop() {
    this.stopping ??= (async () => {
      await this.client?.close().catch(() => {});
      for (const child of this.children.reverse()) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        child.kill('SIGTERM');
        await exited(child);
      }
      rmSync(this.work, { recursive: true, force: true });
    })();
    return this.stopping;
  }
}

/** Values for the required properties of a tool's input schema (numbers for numbers, and so on). */
function argumentsFor(schema) {
  const out = {};
  let n = 2;
  for (const [k, p] of Object.entries(schema?.properties ?? {})) {
    if (!(schema.required ?? []).includes(k)) continue;
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    out[k] =
      type === 'number' || type === 'integer' ? n++ : type === 'boolean' ? true : type === 'array' ? [] : type === 'object' ? {} : 'x';
  }
  return out;
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function firstLine(stream) {
  return new Promise((resolve) => {
    let buf = '';
    stream.setEncoding('utf8');
    const onData = (d) => {
      buf += d;
      const i = buf.indexOf('\n');
      if (i >= 0) {
        stream.off('data', onData);
        stream.resume();
        resolve(buf.slice(0, i).trim());
      }
    };
    stream.on('data', onData);
    stream.once('end', () => resolve(buf.trim() || undefined));
  });
}
