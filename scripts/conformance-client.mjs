#!/usr/bin/env node
// The client under test for `@modelcontextprotocol/conformance client` (scripts/conformance-client.sh
// runs the suite with it): mcpd's downstream client, driven through a real core and gateway.
//
//   node scripts/conformance-client.mjs <server-url>
//
// It writes a store whose one profile points a streamable_http server at <server-url> (with the
// pre-registered client of MCP_CONFORMANCE_CONTEXT when the scenario gives one), starts `mcpd` on a
// private socket, connects an MCP client to `mcpdmcp conformance` on stdio, lists the tools and calls
// each one. When a request fails with mcpd's sign-in error it runs `mcpdctl auth conformance --no-open`
// and plays the browser: it follows the printed authorization URL with plain HTTP redirects back to
// mcpdctl's loopback listener. At most MAX_SIGN_INS sign-ins, so a server that never accepts a token
// cannot loop us. Everything started is stopped before exit. Exit 0 = listing and calls succeeded.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist/cmd');
const MAX_SIGN_INS = 3;
/** The metadata document URL the suite's CIMD scenario expects as client_id. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: conformance-client.mjs <server-url>\n');
  process.exit(2);
}
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const log = (m) => process.stderr.write(`conformance-client: ${m}\n`);

const work = mkdtempSync(join(tmpdir(), 'mcpd-conformance-client-'));
const store = join(work, 'store');
const socket = join(work, 'run', 'control.sock');
mkdirSync(join(store, 'profiles'), { recursive: true });
writeFileSync(join(store, 'callers.yaml'), 'callers: {}\n');
// No metrics listener: its default is a fixed port (127.0.0.1:9464) that parallel runs would race for.
// A first listing waits for the scenario's server however loaded the machine (the default budget is 3 s).
writeFileSync(join(store, 'runtime.yaml'), 'metricsAddress: ""\nlistingBudgetSeconds: 60\n');
writeFileSync(join(store, 'profiles', 'default.yaml'), profileYaml());

const children = [];
let client;
/** The SDK's ToolListChangedNotificationSchema, once the SDK is loaded. */
let listChangedSchema;
let code = 1;
process.once('SIGTERM', () => void stop().then(() => process.exit(143)));
try {
  const core = start('mcpd', ['--config', store, '--socket', socket]);
  // The SDK loads while the core starts (each costs a second or more of CPU on a loaded machine).
  const [{ Client }, { StdioClientTransport }, { ElicitRequestSchema, ToolListChangedNotificationSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  listChangedSchema = ToolListChangedNotificationSchema;
  await waitForSocket(core);
  const gateway = new StdioClientTransport({
    command: process.execPath,
    args: [join(DIST, 'mcpdmcp/main.js'), 'conformance', '--socket', socket, '--no-autostart'],
    env: { ...process.env },
    stderr: 'inherit',
  });
  client = new Client(
    { name: 'mcpd-conformance-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: { applyDefaults: true } } } },
  );
  // Accept every elicitation with nothing filled in: the SDK fills the schema's defaults (SEP-1034).
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
  await client.connect(gateway);
  code = await drive(client);
} catch (e) {
  log(`failed: ${e?.stack ?? e}`);
} finally {
  await stop();
}
process.exit(code);

function profileYaml() {
  const oauth = [`clientMetadataUrl: ${JSON.stringify(CLIENT_METADATA_URL)}`];
  if (context.client_id) oauth.push(`clientId: ${JSON.stringify(context.client_id)}`);
  if (context.client_secret) oauth.push(`clientSecret: ${JSON.stringify(context.client_secret)}`);
  return [
    '# The suite names tools without a prefix.',
    'namespace: { mode: never }',
    'servers:',
    '  - name: conformance',
    '    transport: streamable_http',
    `    url: ${JSON.stringify(url)}`,
    `    oauth: { ${oauth.join(', ')} }`,
    '',
  ].join('\n');
}

/** List, then call every tool; a sign-in error → mcpdctl auth, then the same step again. */
async function drive(c) {
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
        log(`${what} needs sign-in (${signIns}/${MAX_SIGN_INS}): ${msg}`);
        await signIn();
        signedInAt = Date.now();
      }
    }
  };
  const tools = await step('tools/list', () => listServerTools(c, () => signedInAt));
  log(`tools: ${tools.map((t) => t.name).join(', ')}`);
  for (const t of tools) {
    const r = await step(`tools/call ${t.name}`, () => c.callTool({ name: t.name, arguments: argumentsFor(t.inputSchema) }));
    if (r.isError) throw new Error(`tool ${t.name} failed: ${JSON.stringify(r.content)}`);
    log(`called ${t.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
  }
  return 0;
}

/**
 * The server's tools (mcpd adds tools of its own, mcpd_*). An empty list means the core could not
 * list the server: its status then says why — or, right after a sign-in, the core is still listing
 * it, and the gateway's tools/list_changed says when it is done.
 */
async function listServerTools(c, signedInAt) {
  let changed = () => {};
  c.setNotificationHandler(listChangedSchema, () => changed());
  const until = Date.now() + 90_000;
  for (;;) {
    const next = new Promise((resolve) => (changed = resolve));
    const page = await c.listTools();
    const listed = page.tools.filter((t) => !t.name.startsWith('mcpd_'));
    if (listed.length > 0) return listed;
    const why = await whyEmpty(signedInAt());
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
async function whyEmpty(since) {
  const { ControlCalls, createControlClient } = await import(join(ROOT, 'dist/internal/contract/grpc/control-client.js'));
  const control = createControlClient(socket);
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

/** `mcpdctl auth conformance --no-open`, with this process as the browser. */
async function signIn() {
  const child = start('mcpdctl', ['--socket', socket, 'auth', 'conformance', '--no-open', '--wait', '60'], 'pipe');
  const authUrl = await firstLine(child.stdout);
  if (!authUrl) throw new Error('mcpdctl auth printed no authorization URL');
  // The suite's authorization server approves at once and redirects to the loopback callback.
  const res = await fetch(authUrl, { redirect: 'follow' });
  await res.text();
  const exit = await exited(child);
  if (exit !== 0) throw new Error(`mcpdctl auth exited with ${exit}`);
}

function start(bin, args, stdout = 'ignore') {
  const child = spawn(process.execPath, [join(DIST, bin, 'main.js'), ...args], {
    env: process.env,
    stdio: ['ignore', stdout, 'inherit'],
  });
  children.push(child);
  return child;
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

/** The core creates its socket when it is ready; it exiting first is a failure. */
async function waitForSocket(core) {
  const { existsSync } = await import('node:fs');
  for (let i = 0; i < 600; i++) {
    if (existsSync(socket)) return;
    if (core.exitCode !== null) throw new Error(`mcpd exited with ${core.exitCode} before opening ${socket}`);
    await sleep(50); // polling a file the core creates: there is no event to wait on from outside
  }
  throw new Error(`mcpd did not open ${socket} within 30 s`);
}

async function stop() {
  await client?.close().catch(() => {});
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    await exited(child);
  }
  rmSync(work, { recursive: true, force: true });
}
