#!/usr/bin/env -S node --max-semi-space-size=64
// Only what parsing the command line needs is imported up front: each command loads its own modules when
// it runs, so `mcpd --version` or `mcpd validate` never compile the core (docs/benchmarks.md).
import { packageVersion } from '../../internal/shared/version.js';
import { isNoRoom } from '../../internal/shared/disk-full.js';
import { mapStackTracesLazily } from '../../internal/shared/lazy-source-maps.js';
import { COMMON_OPTIONS, configFrom, exitOnHelpOrVersion, parseOrExit, socketFrom } from '../../internal/launch/common-flags.js';
import { dashboardCommand, DASHBOARD_OPTIONS, DASHBOARD_USAGE } from '../../internal/ctl/dashboard-commands.js';
import { stderrLines } from '../../internal/core/infra/telemetry/stderr-lines.js';

const USAGE = `usage:
  mcpd [--config DIR] [--socket PATH]     run the core in the foreground
  mcpd validate [--config DIR] [--json] [--run-commands] [--strict]
                                          check a profile store; exit 1 on any problem; a value not
                                          to be had here (unset variable, input without a value) is a
                                          warning, which fails only with --strict
                                          (command inputs run only with --run-commands)
  mcpd init [--config DIR]                create a starter store (default: ~/.config/mcpd) with JSON Schemas
${DASHBOARD_USAGE}

  --config DIR   profile store (callers.yaml, profiles/*.yaml, runtime.yaml); env MCPD_CONFIG; default: the current
                 directory if it holds a store, else $XDG_CONFIG_HOME/mcpd (~/.config/mcpd), created on first run
  --socket PATH  control-plane unix socket; env MCPD_SOCKET; default: the socket the store's running core
                 recorded, else runtime.yaml's socket:, else /run/user/<uid>/mcpd/control.sock for the user's
                 store (/tmp/mcpd-<uid>/… without that directory) and control-<hash of the store>.sock beside
                 it for any other store`;

const { values, positionals } = parseOrExit(
  {
    options: {
      ...COMMON_OPTIONS,
      ...DASHBOARD_OPTIONS,
      json: { type: 'boolean' },
      'run-commands': { type: 'boolean' },
      strict: { type: 'boolean' },
    },
    allowPositionals: true,
  },
  USAGE,
);

exitOnHelpOrVersion(values, USAGE, packageVersion);

const [command] = positionals;
if (command === 'validate') {
  const { validateCommand } = await import('../../internal/ctl/validate-command.js');
  process.exit(
    await validateCommand(configFrom(values.config), Boolean(values.json), Boolean(values['run-commands']), Boolean(values.strict)),
  );
} else if (command === 'init') {
  const { initCommand, initTarget } = await import('../../internal/ctl/init-command.js');
  process.exit(await initCommand(initTarget(values.config, process.env), (s) => process.stdout.write(s)));
} else if (command === 'open' || command === 'url-handler') {
  process.exit(
    await dashboardCommand(positionals, values, {
      socket: await socketFrom(values.socket, process.env, configFrom(values.config)),
      configDir: configFrom(values.config),
      usage: USAGE,
    }),
  );
} else if (command !== undefined) {
  process.stderr.write(`unknown command "${command}"\n\n${USAGE}\n`);
  process.exit(2);
}

try {
  // The core runs for days and logs what fails: its stack traces point into the TypeScript sources (the
  // bundles' .map files), each map read only when a frame of its bundle is printed — Node's own source-map
  // support parses every loaded module's map up front, some 8 MB of the core's idle RSS (docs/benchmarks.md).
  mapStackTracesLazily();
  const { runCore } = await import('../../internal/core/app/bootstrap.js');
  const running = await runCore({
    configDir: configFrom(values.config),
    socket: values.socket,
    onStopped: () => process.exit(0),
  });
  let signals = 0;
  const shutdown = (sig: string) => {
    if (++signals > 1) process.exit(1);
    stderrLines().line(`mcpd: ${sig}, stopping\n`, true); // after the core's pending log lines
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (e) {
  stderrLines().line(`mcpd: ${startFailure(e, configFrom(values.config))}\n`, true);
  process.exit(1);
}

/** Why the core did not start; a bare "no space left on device, write" (Node names no file) says where to look. */
function startFailure(e: unknown, configDir: string): string {
  const message = (e as Error)?.message ?? String(e);
  if (!isNoRoom(e) || (e as NodeJS.ErrnoException).path !== undefined || message.startsWith('cannot write')) return message;
  return `${message}: a file of the store (${configDir}) or beside the socket could not be written; free space on that filesystem (\`df -h\`) and start again`;
}
