import { PassThrough } from 'node:stream';

/**
 * In-process stdin/stdout pipes for a stdio MCP server under test: every JSON line it writes to `stdout`
 * is parsed into `lines`; `send` writes one message to its `stdin`.
 */
export function jsonLinePipes() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      lines.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
    }
  });
  const send = (m: object) => stdin.write(`${JSON.stringify(m)}\n`);
  return { stdin, stdout, lines, send };
}
