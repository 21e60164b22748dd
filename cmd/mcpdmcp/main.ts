#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { packageVersion } from '../../internal/app/version.js';
import { COMMON_OPTIONS, configFrom, parseOrExit, socketFrom } from '../../internal/infra/cli/common-flags.js';
import { startCoreDaemon } from '../../internal/infra/gateway/autostart.js';
import { Gateway } from '../../internal/infra/gateway/mcp-gateway.js';

const USAGE = `usage: mcpdmcp <caller> [--socket PATH] [--config DIR] [--no-autostart] [--core-wait-ms N]

An MCP server on stdio for one caller. It forwards the session to the mcpd core and starts a core
(with --config DIR, env MCPD_CONFIG) when none is listening, unless --no-autostart is given.
A request waits up to --core-wait-ms (default 15000) for a core to answer before it fails.`;

const { values, positionals } = parseOrExit(
  { options: { ...COMMON_OPTIONS, 'no-autostart': { type: 'boolean' }, 'core-wait-ms': { type: 'string' } }, allowPositionals: true },
  USAGE,
);
if (values.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}
if (values.version) {
  process.stderr.write(`${packageVersion()}\n`);
  process.exit(0);
}
const caller = positionals[0];
if (!caller || positionals.length > 1) {
  process.stderr.write(`mcpdmcp needs exactly one caller name\n\n${USAGE}\n`);
  process.exit(2);
}

const socket = socketFrom(values.socket);
const coreWaitMs = Number(values['core-wait-ms'] ?? 15_000);
if (!Number.isInteger(coreWaitMs) || coreWaitMs < 0) {
  process.stderr.write(`--core-wait-ms must be a whole number of milliseconds, got "${values['core-wait-ms']}"\n`);
  process.exit(2);
}
const log = (msg: string) => process.stderr.write(`mcpdmcp[${caller}]: ${msg}\n`);
const coreEntry = resolve(fileURLToPath(import.meta.url), '../../mcpd/main.js');
const gateway = new Gateway({
  caller,
  socket,
  version: packageVersion(),
  coreWaitMs,
  log,
  startCore: values['no-autostart']
    ? undefined
    : () => {
        const { pid, logFile } = startCoreDaemon({ coreEntry, socket, configDir: resolve(configFrom(values.config)) });
        log(`started core pid ${pid}; its log is ${logFile}`);
      },
});

// The client closing stdin ends the session; the gateway then exits (its core keeps running).
const exit = () => void gateway.close().finally(() => process.exit(0));
gateway.server.onclose = exit;
process.stdin.on('end', exit);
await gateway.connect(new StdioServerTransport());
