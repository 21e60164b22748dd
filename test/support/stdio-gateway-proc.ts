import { spawn, type ChildProcess } from 'node:child_process';
import { INITIALIZE } from './http-gateway.js';
import { MCPDMCP } from './paths.js';

export interface StdioGatewayProc {
  proc: ChildProcess;
  /** Settles when the process has exited. */
  exited: Promise<unknown>;
  /** Everything the gateway wrote on stdout so far: its JSON-RPC lines as they came, no SDK in between. */
  output: () => string;
  /** Writes one JSON-RPC message as a line on the gateway's stdin. */
  send: (message: object) => void;
}

/**
 * `mcpdmcp <caller>` over stdio, driven with raw lines, already sent `initialize` and
 * `notifications/initialized` (the gateway answers the first at once; read it from `output()`).
 */
export function startStdioGatewayProc(caller: string, socket: string, env: NodeJS.ProcessEnv): StdioGatewayProc {
  const proc = spawn(process.execPath, [MCPDMCP, caller, '--socket', socket, '--no-autostart'], {
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const exited = new Promise((r) => proc.once('exit', r));
  let out = '';
  proc.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  const send = (m: object) => void proc.stdin?.write(`${JSON.stringify(m)}\n`);
  send(INITIALIZE);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { proc, exited, output: () => out, send };
}
