import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { MCPDMCP } from './paths.js';

export interface HttpGatewayProc {
  proc: ChildProcess;
  /** The URL the gateway printed (`listening on <url>`). */
  url: string;
  stderr: () => string;
}

/** Starts `mcpdmcp <caller> --http …` and waits for the URL it prints on stderr. */
export function startHttpGatewayProc(caller: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<HttpGatewayProc> {
  const proc = spawn(process.execPath, [MCPDMCP, caller, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr?.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcpdmcp printed no URL within ${timeoutMs} ms; stderr:\n${err}`)), timeoutMs);
    proc.stderr?.on('data', (d: string) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], stderr: () => err });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`mcpdmcp exited with ${code} before listening; stderr:\n${err}`), { code, stderr: err }));
    });
  });
}

/** Stops a process and waits until it is gone. */
export async function stopProc(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await gone;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A POST with exactly the headers given (fetch would not let a test forge Host). */
export function rawPost(url: string, headers: Record<string, string>, body: unknown): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        // An SSE answer stays open; the first event is all a test needs.
        res.on('data', () => {
          if (String(res.headers['content-type']).includes('text/event-stream') && text.includes('\n\n')) res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
};
