import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { DIST } from './paths.js';
import { waitFor } from './procs.js';

export const MCPD_SMCP = resolve(DIST, 'cmd/mcpd-smcp/main.js');

/** A real `mcpd-smcp` process, tagged so the world's cleanup proves it gone. */
export interface SmcpServerProc {
  proc: ChildProcess;
  url: string;
  port: number;
  log: string[];
}

export async function startSmcpServer(env: NodeJS.ProcessEnv, port = 0): Promise<SmcpServerProc> {
  const proc = spawn(process.execPath, [MCPD_SMCP, '--listen', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (d: string) => log.push(d));
  const first = await new Promise<string>((res, rej) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', (l) => res(l));
    proc.once('exit', (code) => rej(new Error(`mcpd-smcp exited with ${code}: ${log.join('')}`)));
  });
  const info = JSON.parse(first) as { url: string; port: number };
  return { proc, url: info.url, port: info.port, log };
}

export async function stopProc(p: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const gone = new Promise<void>((res) => p.once('exit', () => res()));
  p.kill(signal);
  await gone;
}

export interface Notice {
  event: string;
  data: Record<string, unknown>;
}

/** An office's agent over a plain Socket.IO client: joins, sends `client:*` requests, records `notify:*`. */
export class TestAgent {
  readonly notices: Notice[] = [];

  private constructor(
    readonly socket: Socket,
    readonly name: string,
    readonly office: string,
  ) {
    socket.onAny((event: string, data: Record<string, unknown>) => {
      if (event.startsWith('notify:')) this.notices.push({ event, data });
    });
  }

  static async join(url: string, apiKey: string, office: string, name = 'agent-1'): Promise<TestAgent> {
    const socket = io(`${url}/smcp`, { extraHeaders: { 'x-api-key': apiKey }, reconnection: false, forceNew: true });
    await new Promise<void>((res, rej) => {
      socket.once('connect', () => res());
      socket.once('connect_error', (e) => rej(e));
    });
    const agent = new TestAgent(socket, name, office);
    const ack = await new Promise<unknown[]>((res) =>
      socket.emit('server:join_office', { role: 'agent', name, office_id: office }, (...a: unknown[]) => res(a)),
    );
    if (ack[0] !== true) throw new Error(`agent join refused: ${JSON.stringify(ack)}`);
    return agent;
  }

  /** A routed request; `fields` are added to {agent, req_id, computer}. */
  async request<T = Record<string, unknown>>(
    event: string,
    computer: string,
    fields: Record<string, unknown> = {},
    reqId: string = randomUUID(),
  ): Promise<T> {
    return (await this.socket.timeout(60_000).emitWithAck(event, { agent: this.name, req_id: reqId, computer, ...fields })) as T;
  }

  cancel(reqId: string): void {
    this.socket.emit('server:tool_call_cancel', { agent: this.name, req_id: reqId });
  }

  async listRoom(): Promise<{ sid: string; name: string; role: string }[]> {
    const r = (await this.socket
      .timeout(30_000)
      .emitWithAck('server:list_room', { agent: this.name, req_id: randomUUID(), office_id: this.office })) as {
      sessions: { sid: string; name: string; role: string }[];
    };
    return r.sessions;
  }

  /** Waits for a notice that arrives after `since` notices were seen and matches. */
  async notice(event: string, since: number, match: (d: Record<string, unknown>) => boolean = () => true): Promise<Notice> {
    let found: Notice | undefined;
    await waitFor(`${event} after notice #${since}`, () => {
      found = this.notices.slice(since).find((n) => n.event === event && match(n.data));
      return found !== undefined;
    });
    return found as Notice;
  }

  close(): void {
    this.socket.close();
  }
}
