import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { waitFor } from './procs.js';
import { connected, connectRaw, join } from './smcp-peers.js';

export interface Notice {
  event: string;
  data: Record<string, unknown>;
}

/** An office's agent over a raw Socket.IO client: joins, sends `client:*` requests, records `notify:*`. */
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
    const socket = await connected(connectRaw(url, { apiKey }));
    const agent = new TestAgent(socket, name, office);
    const [ok, msg] = await join(socket, 'agent', name, office);
    if (!ok) throw new Error(`agent join refused: ${msg}`);
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

  /** Waits for a notice that arrived after the first `since` notices and matches. */
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
