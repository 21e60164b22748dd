import { ECHO_SERVER, EVERYTHING, FIXTURES } from './paths.js';

export const WINDOW_SERVER = `${FIXTURES}/servers/window-server.mjs`;

/**
 * A ServerSpec YAML block (a `servers:` list item) running `cmd`, with the test's tag in its env so
 * clean-up can find the process; `extra` keys go under the server, `env` into its environment.
 */
export function server(name: string, cmd: string[], extra: Record<string, string | number> = {}, env: Record<string, string> = {}): string {
  const lines = [
    `  - name: ${name}`,
    `    cmd: [${cmd.map((c) => JSON.stringify(c)).join(', ')}]`,
    `    env:`,
    `      MCPD_TEST_TAG: \${MCPD_TEST_TAG}`,
    ...Object.entries(env).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`),
    ...Object.entries(extra).map(([k, v]) => `    ${k}: ${v}`),
  ];
  return lines.join('\n') + '\n';
}

/** The echo fixture (test/fixtures/servers/echo.mjs). */
export function echoServer(name: string, extra: Record<string, string | number> = {}, env: Record<string, string> = {}): string {
  return server(name, [process.execPath, ECHO_SERVER], extra, env);
}

/** @modelcontextprotocol/server-everything on stdio. */
export function everythingServer(name: string, extra: Record<string, string | number> = {}): string {
  return server(name, [process.execPath, EVERYTHING, 'stdio'], extra);
}

/** The window fixture (window-server.mjs) publishing windows of app `host`. */
export function windowServer(
  name: string,
  host: string,
  extra: Record<string, string | number> = {},
  env: Record<string, string> = {},
): string {
  return server(name, [process.execPath, WINDOW_SERVER], extra, { WINDOW_HOST: host, ...env });
}

export function profile(...servers: string[]): string {
  return `servers:\n${servers.join('')}`;
}
