import type { Socket } from 'socket.io-client';
import { afterEach, expect } from 'vitest';
import { connected, connectRaw, Inbox, join, TestComputer, type ComputerHandlers, type PeerOptions } from './smcp-peers.js';

/**
 * The raw SMCP peers of one test file on mcpd-smcp nodes: a fresh office name per test, agents that
 * have joined, test Computers, raw sockets. Everything it opened is closed after each test (or on
 * `closeAll()`), so no peer of one test can answer in the next.
 */
export class SmcpOffice {
  private readonly open: { close(): void }[] = [];
  private seq = 0;

  /** `defaults`: connection options of every peer (e.g. the API key of a Redis cluster). */
  constructor(
    private readonly prefix = 'office',
    private readonly defaults: PeerOptions = {},
  ) {
    afterEach(() => this.closeAll());
  }

  /** A name no other test of the file uses. */
  office(): string {
    return `${this.prefix}-${++this.seq}`;
  }

  /** Closed with the rest after the test. */
  track<T extends { close(): void }>(peer: T): T {
    this.open.push(peer);
    return peer;
  }

  /** A raw Socket.IO client on `url`'s /smcp namespace, not connected or joined yet. */
  socket(url: string, o: PeerOptions = {}): Socket {
    const s = connectRaw(url, { ...this.defaults, ...o });
    this.track({ close: () => s.disconnect() });
    return s;
  }

  /** An agent that has joined `office` (the join is asserted), with an inbox of everything it received. */
  async agent(url: string, office: string, name = 'agent-1', o: PeerOptions = {}): Promise<{ s: Socket; inbox: Inbox }> {
    const s = this.socket(url, o);
    const inbox = new Inbox(s);
    await connected(s);
    expect(await join(s, 'agent', name, office)).toEqual([true, null]);
    return { s, inbox };
  }

  /** A test Computer on `url` (join it with `.join(office)`). */
  computer(url: string, name: string, o: PeerOptions = {}, handlers?: ComputerHandlers): TestComputer {
    return this.track(new TestComputer(url, name, { ...this.defaults, ...o }, handlers));
  }

  closeAll(): void {
    for (const p of this.open.splice(0)) p.close();
  }
}

let callSeq = 0;

export type ToolCall = { agent: string; req_id: string; computer: string } & Record<string, unknown>;

/** A `client:tool_call` from agent-1 to `computer`: tool `echo` of `message` "hello", 20 s, a fresh req_id. */
export function toolCall(computer: string, extra: Record<string, unknown> = {}): ToolCall {
  return {
    agent: 'agent-1',
    req_id: `r-${++callSeq}`,
    computer,
    tool_name: 'echo',
    params: { message: 'hello' },
    timeout: 20,
    ...extra,
  };
}
