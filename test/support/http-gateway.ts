import { spawn, type ChildProcess } from 'node:child_process';
import { request, type RequestOptions } from 'node:http';
import { MCPDMCP } from './paths.js';
import type { TestWorld } from './core-process.js';

export interface HttpGatewayProc {
  proc: ChildProcess;
  /** The URL the gateway printed (`listening on <url>`). */
  url: string;
  stderr: () => string;
}

/** `mcpdmcp <caller> --http 127.0.0.1:0` on a test core (no autostart); `extraEnv` joins the world's env. */
export function startWorldHttpGateway(
  world: Pick<TestWorld, 'socket' | 'env'>,
  caller: string,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<HttpGatewayProc> {
  return startHttpGatewayProc(
    caller,
    ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0', ...extraArgs],
    world.env(extraEnv),
  );
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
      const [, url] = /listening on (http:\/\/\S+)/.exec(err) ?? [];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ proc, url, stderr: () => err });
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
  return new Promise((resolve, reject) => {
    const req = request(requestOptions(url, 'POST', headers), (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      // An SSE answer stays open; the first event is all a test needs.
      res.on('data', () => {
        if (String(res.headers['content-type']).includes('text/event-stream') && text.includes('\n\n')) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
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

export interface SseEvent {
  id?: string;
  retry?: string;
  data: string;
}

/** An HTTP request answered with SSE, read until `enough` says so (or the server ends the stream). */
export function sse(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: unknown,
  enough: (events: SseEvent[]) => boolean,
): Promise<{ headers: Record<string, unknown>; events: SseEvent[] }> {
  return new Promise((resolve, reject) => {
    const req = request(requestOptions(url, method, headers), (res) => {
      let text = '';
      const events = (): SseEvent[] =>
        text
          .split('\n\n')
          .slice(0, -1)
          .map((block) => {
            const e: SseEvent = { data: '' };
            for (const line of block.split('\n')) {
              const [k, ...rest] = line.split(':');
              const v = rest.join(':').trimStart();
              if (k === 'id') e.id = v;
              else if (k === 'retry') e.retry = v;
              else if (k === 'data') e.data += v;
            }
            return e;
          });
      const done = () => resolve({ headers: res.headers, events: events() });
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
        if (enough(events())) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Options for a request to the gateway with exactly these headers over the JSON/SSE defaults. */
function requestOptions(url: string, method: 'GET' | 'POST', headers: Record<string, string>): RequestOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port,
    path: u.pathname,
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  };
}
