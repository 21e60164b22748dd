import { ECHO_SERVER, EVERYTHING } from './paths.js';

/** A ServerSpec YAML block for the echo fixture; extra lines are indented under it. */
export function echoServer(name: string, extra: Record<string, string | number> = {}, env: Record<string, string> = {}): string {
  const lines = [
    `  - name: ${name}`,
    `    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO_SERVER)}]`,
    `    env:`,
    `      MCPD_TEST_TAG: \${MCPD_TEST_TAG}`,
    ...Object.entries(env).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`),
    ...Object.entries(extra).map(([k, v]) => `    ${k}: ${v}`),
  ];
  return lines.join('\n') + '\n';
}

export function everythingServer(name: string, extra: Record<string, string | number> = {}): string {
  const lines = [
    `  - name: ${name}`,
    `    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]`,
    `    env:`,
    `      MCPD_TEST_TAG: \${MCPD_TEST_TAG}`,
    ...Object.entries(extra).map(([k, v]) => `    ${k}: ${v}`),
  ];
  return lines.join('\n') + '\n';
}

export function profile(...servers: string[]): string {
  return `servers:\n${servers.join('')}`;
}
