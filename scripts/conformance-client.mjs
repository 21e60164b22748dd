#!/usr/bin/env node
// The client under test for `@modelcontextprotocol/conformance client` (scripts/conformance-client.sh
// runs the suite with it): mcpd's downstream client, driven through a real core and gateway
// (scripts/conformance-client-scenario.mjs says how).
//
//   node scripts/conformance-client.mjs <server-url>
//
// Run by hand (or by the suite on its own), it runs the scenario in this process. Under
// scripts/conformance-client.sh, CONFORMANCE_CLIENT_DRIVER names the socket of the run's driver
// (scripts/conformance-client-driver.mjs), which runs the scenario instead: this process only hands it
// the URL and context, prints its log lines on stderr and exits with its code. Exit 0 = listing and
// calls succeeded.
import { connect } from 'node:net';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: conformance-client.mjs <server-url>\n');
  process.exit(2);
}
const output = (text) => process.stderr.write(text);
const driver = process.env.CONFORMANCE_CLIENT_DRIVER;
process.exit(driver ? await viaDriver(driver) : await inProcess());

async function inProcess() {
  const { runScenario } = await import('./conformance-client-scenario.mjs');
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort('SIGTERM'));
  return runScenario({ url, context: process.env.MCP_CONFORMANCE_CONTEXT, output, signal: stop.signal });
}

/**
 * One request line to the driver; it answers with `{"stderr": …}` lines and a last `{"exit": n}`. The
 * suite ending this process (its timeout) closes the connection, which stops the scenario.
 */
function viaDriver(path) {
  return new Promise((resolve) => {
    const socket = connect(path);
    const request = { url, context: process.env.MCP_CONFORMANCE_CONTEXT, scenario: process.env.MCP_CONFORMANCE_SCENARIO };
    socket.once('connect', () => socket.write(JSON.stringify(request) + '\n'));
    socket.once('error', (e) => {
      output(`conformance-client: cannot reach the driver at ${path}: ${e.message}\n`);
      resolve(1);
    });
    let buf = '';
    let code = 1;
    socket.setEncoding('utf8').on('data', (d) => {
      buf += d;
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const message = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if ('stderr' in message) output(message.stderr);
        if ('exit' in message) code = message.exit;
      }
    });
    socket.once('close', () => resolve(code));
    process.once('SIGTERM', () => socket.destroy());
  });
}
