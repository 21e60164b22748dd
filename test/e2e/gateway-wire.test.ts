import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { MCPDMCP } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';

type Message = {
  id?: number | string;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  params?: Record<string, unknown>;
};

/** mcpdmcp driven line by line, as a client that speaks raw JSON-RPC sees it. */
class WireClient {
  private buffer = '';
  private readonly seen: Message[] = [];
  private waiters: (() => void)[] = [];
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (d: Buffer) => {
      this.buffer += d.toString();
      let i: number;
      while ((i = this.buffer.indexOf('\n')) >= 0) {
        this.seen.push(JSON.parse(this.buffer.slice(0, i)) as Message);
        this.buffer = this.buffer.slice(i + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }
  send(m: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  }
  async next(match: (m: Message) => boolean): Promise<Message> {
    for (;;) {
      const i = this.seen.findIndex(match);
      const [found] = i >= 0 ? this.seen.splice(i, 1) : [];
      if (found) return found;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
  all(): Message[] {
    return [...this.seen];
  }
  async request(id: number | string, method: string, params: Record<string, unknown>): Promise<Message> {
    this.send({ id, method, params });
    return this.next((m) => m.id === id);
  }
}

describe('tools/call on the wire through mcpdmcp (stdio)', () => {
  let world: TestWorld;
  let wire: WireClient;
  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    const child = spawn(process.execPath, [MCPDMCP, 'wire', '--socket', world.socket, '--no-autostart'], {
      env: world.env(),
      stdio: 'pipe',
    });
    wire = new WireClient(child);
    const init = await wire.request(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'wire', version: '1' },
    });
    expect(init.result?.serverInfo).toMatchObject({ name: 'mcpd' });
    wire.send({ method: 'notifications/initialized' });
  });
  afterAll(async () => {
    wire.child.stdin.end();
    await new Promise((r) => (wire.child.exitCode !== null ? r(null) : wire.child.once('exit', r)));
    await world.cleanup();
  });

  it('passes the server result through unchanged, for numeric and string ids', async () => {
    const args = { text: 'ünïcødé ✓', nested: { list: [1, 2.5, null, true], empty: {} } };
    const a = await wire.request(1, 'tools/call', { name: 'fx__echo', arguments: args });
    expect(a.result?.structuredContent).toEqual(args);
    const b = await wire.request('req-two', 'tools/call', { name: 'fx__echo', arguments: { x: 1 } });
    expect(b.result?.structuredContent).toEqual({ x: 1 });
  });

  it('takes any member order and spacing, braces inside strings included', async () => {
    wire.child.stdin.write(
      '{ "params" : { "arguments" : { "s" : "}{\\"}" , "n" : [ {} ] } , "name" : "fx__echo" } , "id" : 10 , "method" : "tools/call" , "jsonrpc" : "2.0" }\n',
    );
    const r = await wire.next((m) => m.id === 10);
    expect(r.result?.structuredContent).toEqual({ s: '}{"}', n: [{}] });
  });

  it('answers bad calls with JSON-RPC errors that say what was wrong', async () => {
    const unknown = await wire.request(3, 'tools/call', { name: 'fx__nope', arguments: {} });
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toMatch(/fx__nope/);
    const badArgs = await wire.request(4, 'tools/call', { name: 'fx__echo', arguments: [1, 2] });
    expect(badArgs.error?.code).toBe(-32602);
    expect(badArgs.error?.message).toMatch(/"arguments" must be an object, got an array/);
    const noName = await wire.request(5, 'tools/call', { arguments: {} });
    expect(noName.error?.code).toBe(-32602);
  });

  it('sends progress before the result, and no answer to a cancelled call', async () => {
    const done = await wire.request(6, 'tools/call', { name: 'fx__slow', arguments: { steps: 2, ms: 10 }, _meta: { progressToken: 'p6' } });
    expect(done.result?.content).toEqual([{ type: 'text', text: 'done' }]);
    const progress = await wire.next((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'p6');
    expect(progress.params).toMatchObject({ progressToken: 'p6', progress: expect.any(Number), total: 2 });

    wire.send({
      id: 7,
      method: 'tools/call',
      params: { name: 'fx__slow', arguments: { steps: 1000, ms: 20 }, _meta: { progressToken: 'p7' } },
    });
    await wire.next((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'p7');
    wire.send({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'enough' } });
    // A later call is answered; by then the cancelled one would have been answered too, had it been.
    const after = await wire.request(8, 'tools/call', { name: 'fx__echo', arguments: { after: 7 } });
    expect(after.result?.structuredContent).toEqual({ after: 7 });
    expect(wire.all().some((m) => m.id === 7)).toBe(false);
  });

  it("passes the cancel of a call without a progress token (the core's lane) on to the server", async () => {
    wire.send({ id: 20, method: 'tools/call', params: { name: 'fx__hang', arguments: {} } });
    await world.waitForLogLine('the call to reach the server', /fixture: hanging/);
    wire.send({ method: 'notifications/cancelled', params: { requestId: 20, reason: 'enough' } });
    await world.waitForLogLine('the server to hear the cancel', /fixture: cancelled hang/);
    // The cancelled call gave its slot back: the next call is served, and the cancelled one gets no answer.
    const after = await wire.request(21, 'tools/call', { name: 'fx__echo', arguments: { after: 20 } });
    expect(after.result?.structuredContent).toEqual({ after: 20 });
    expect(wire.all().some((m) => m.id === 20)).toBe(false);
  });
});
