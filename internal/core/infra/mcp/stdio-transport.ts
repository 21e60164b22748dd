import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { jsonRpcLines, MAX_LINE_BYTES, parseJsonRpc, severalLines } from '../../../shared/jsonrpc/line-reader.js';
import { splitResultBytes } from '../../../shared/jsonrpc/split-response.js';
import { DirectRequests } from './direct-requests.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter } from '../../../shared/line-splitter.js';
import { NotificationsFirst } from '../jsonrpc/notifications-first.js';
import { signalGroup, waitGroupGone } from './process-group.js';
import type { Reaper } from './reaper.js';
import { cappedDelay } from '../../../shared/timer-limit.js';
import { type TurnWrites, WriteBatcher } from '../../../shared/jsonrpc/turn-writes.js';

export interface StdioTransportOptions {
  serverName: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** SIGTERM → SIGKILL grace used by close(). */
  graceMs: number;
  onStderr: (line: string) => void;
  reaper?: Reaper;
  /** The process's write batcher, shared with the core's Sessions (default: this transport's own). */
  batcher?: WriteBatcher;
  /** Called once when the transport is closed (a sandbox's proxy and socket are released). */
  onGone?: () => void;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDOUT_SETTLE_MS = 100;
const EXIT_WAIT_MS = 5000;
const STDERR_TAIL = 20;
/**
 * Bytes of stdout lines that are not JSON-RPC a server may write (a banner, a stray print) before it
 * is cut off: a server flooding its stdout with anything else would hold its session, and every
 * listing waiting on it, for as long as it floods.
 */
const MAX_JUNK_BYTES = 1024 * 1024;
/** A server's stderr line is cut to this many bytes (then `…`): logs stay readable and bounded. */
const STDERR_LINE_BYTES = 8192;

/**
 * MCP stdio transport that owns its process: the server is spawned as the leader of its own
 * process group, so stopping it (and anything it spawned) is one signal to the group.
 */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  /** The child's stdin, one writev per turn (TurnWrites). */
  private stdinWrites?: TurnWrites;
  private readonly readBuffer = jsonRpcLines();
  private readonly stderrTail: string[] = [];
  private exit?: ExitInfo;
  private exited?: Promise<void>;
  private stopping?: Promise<void>;
  private closeNotified = false;
  /** Started before its client connects (the era probe): the client's own start() is then a no-op. */
  private startedEarly = false;
  /** Why the transport stopped the server itself (e.g. an oversized line), for the calls it ends. */
  private fatal?: string;
  /** Bytes of stdout lines that were not JSON-RPC so far (bounded by MAX_JUNK_BYTES). */
  private junkBytes = 0;
  /** Requests that bypass the SDK's Protocol; their answers are taken out of the stream before it sees them. */
  readonly direct: DirectRequests;
  /** SDK notifications are dispatched a microtask late: what follows one waits behind its handler. */
  private readonly ordered = new NotificationsFirst<Buffer>((line) => this.deliver(line));

  private readonly batcher: WriteBatcher;

  constructor(private readonly opts: StdioTransportOptions) {
    this.batcher = opts.batcher ?? new WriteBatcher();
    this.direct = new DirectRequests(opts.serverName, (line) => this.writeLine(line));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get exitInfo(): ExitInfo | undefined {
    return this.exit;
  }

  /** Set when the transport stopped the server because of what it wrote. */
  get fatalReason(): string | undefined {
    return this.fatal;
  }

  /** "code 1" / "signal SIGKILL", for error messages. */
  describeExit(): string {
    if (!this.exit) return 'still running';
    return this.exit.signal ? `signal ${this.exit.signal}` : `code ${this.exit.code}`;
  }

  /** Last stderr lines, to explain a failed start. */
  recentStderr(): string[] {
    return [...this.stderrTail];
  }

  /** The version the MCP handshake settled on (the SDK tells its transport). */
  protocolVersion?: string;

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** Spawns the server before a client is attached, so the core can ask `server/discover` first. */
  async startEarly(): Promise<void> {
    await this.start();
    this.startedEarly = true;
  }

  async start(): Promise<void> {
    if (this.child && this.startedEarly) {
      this.startedEarly = false;
      return;
    }
    if (this.child) throw new Error(`stdio transport for ${this.opts.serverName} already started`);
    const { command, args, env, cwd, serverName } = this.opts;
    const where = cwd ?? process.cwd();
    if (cwd && !existsSync(cwd)) {
      throw new Error(`cannot start server ${serverName}: working directory ${cwd} does not exist (fix "cwd" in the spec)`);
    }
    const child = spawn(command, args, { cwd, env, detached: true, shell: false, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err: NodeJS.ErrnoException) => {
        const why = err.code === 'ENOENT' ? 'command not found (check "cmd" and PATH)' : err.message;
        reject(new Error(`cannot start server ${serverName}: "${command}" in ${where}: ${why}`));
      });
    });
    const pid = child.pid as number;
    this.opts.reaper?.register(pid);
    this.wire(child, pid);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.writeLine(serializeMessage(message))) {
      const stdin = this.child?.stdin;
      await new Promise<void>((r) => stdin?.once('drain', r));
    }
  }

  /** Writes one serialized message; false = buffered past the high-water mark. Throws when the server is gone. */
  private writeLine(line: string): boolean {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.exit) {
      throw new Error(`server ${this.opts.serverName} is not running (${this.describeExit()})`);
    }
    this.stdinWrites ??= this.batcher.writer(stdin);
    return this.stdinWrites.write(line);
  }

  close(): Promise<void> {
    return this.stop(this.opts.graceMs);
  }

  /** Close stdin, SIGTERM the group, wait up to `graceMs`, SIGKILL the group, await the exit. */
  stop(graceMs: number): Promise<void> {
    this.stopping ??= this.doStop(graceMs);
    return this.stopping;
  }

  private async doStop(graceMs: number): Promise<void> {
    const child = this.child;
    if (!child?.pid) return this.notifyClose();
    const pgid = child.pid;
    child.stdin?.end();
    signalGroup(pgid, 'SIGTERM');
    if (!(await waitGroupGone(pgid, graceMs))) signalGroup(pgid, 'SIGKILL');
    await Promise.race([this.exited, delay(EXIT_WAIT_MS)]);
    await waitGroupGone(pgid, EXIT_WAIT_MS);
    this.opts.reaper?.unregister(pgid);
    this.notifyClose();
  }

  /** A line about the server from mcpd itself (a sandbox denial): logged and kept like its own stderr. */
  note(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
    this.opts.onStderr(line);
  }

  private wire(child: ChildProcess, pgid: number): void {
    const stderr = new LineSplitter({ maxLineBytes: STDERR_LINE_BYTES, overLong: 'truncate' });
    const onLine = (line: string | null): void => {
      if (line !== null) this.note(line);
    };
    child.stderr?.on('data', (d: Buffer) => {
      stderr.push(d);
      for (let line = stderr.next(); line !== null; line = stderr.next()) onLine(line);
    });
    child.stderr?.on('end', () => onLine(stderr.rest()));
    child.stderr?.on('error', () => {});
    child.on('error', (err) => this.onerror?.(err)); // e.g. a failed kill: never an uncaught 'error' event
    child.stdin?.on('error', (err) => this.onerror?.(err));
    const stdoutEnded = new Promise<void>((r) => child.stdout?.once('close', r));
    child.stdout?.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stdout?.on('error', (err) => this.onerror?.(err));
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
        // afterExit() only waits, signals and polls /proc (none of which throws); the exit itself is already resolved.
        void this.afterExit(pgid, stdoutEnded);
      });
    });
  }

  private async afterExit(pgid: number, stdoutEnded: Promise<void>): Promise<void> {
    // A response written just before exiting may still be in the pipe: let it be read first.
    await Promise.race([stdoutEnded, delay(STDOUT_SETTLE_MS)]);
    if (this.stopping) return; // doStop finishes the group and notifies
    // Unexpected exit: whatever the server left in its group dies with it.
    signalGroup(pgid, 'SIGKILL');
    this.notifyClose();
    await waitGroupGone(pgid, EXIT_WAIT_MS);
    this.opts.reaper?.unregister(pgid);
  }

  private onStdout(chunk: Buffer): void {
    // A server being stopped for what it wrote: the rest of its output is not read.
    if (this.fatal) return;
    try {
      this.readBuffer.push(chunk);
    } catch {
      // Memory stays bounded: a line this long is refused whole, and the server with it (its stream
      // cannot be resynchronised without reading the rest of the line).
      this.fatal ??= `it wrote a JSON-RPC message of more than ${MAX_LINE_BYTES / 1024 / 1024} MiB (messages that large are refused to keep memory bounded; have the tool return less)`;
      this.onerror?.(new Error(`server ${this.opts.serverName} was stopped because ${this.fatal}`));
      // stop() signals and polls the group and does not reject; the reader must not wait for the kill.
      void this.stop(0);
      return;
    }
    if (severalLines(chunk)) this.batcher.holdWritesOfThisRead();
    for (let line = this.readBuffer.nextBytes(); line !== null; line = this.readBuffer.nextBytes()) this.ordered.push(line);
  }

  /**
   * Hands one line to its direct request or to the SDK; true = the SDK got a notification (which it
   * dispatches late, so the lines after it wait). Direct answers pass through the same queue: a
   * direct request's progress read before its result must reach it first.
   */
  private deliver(line: Buffer): boolean {
    // Answers to direct requests are taken here on their bytes: a tool result is passed on as the server
    // wrote it, never decoded or parsed whole (only its envelope is read).
    const split = this.direct.waiting ? splitResultBytes(line) : undefined;
    if (split && this.direct.acceptResult(split)) return false;
    const text = line.toString('utf8');
    try {
      const message = parseJsonRpc(text);
      if (this.direct.accept(message)) return false;
      this.onmessage?.(message);
      return !('id' in message);
    } catch (err) {
      this.junk(text, err as Error);
      return false;
    }
  }

  /** A stdout line that is not JSON-RPC: reported, and past MAX_JUNK_BYTES of them the server is stopped. */
  private junk(line: string, err: Error): void {
    if (this.fatal) return;
    this.junkBytes += line.length + 1;
    if (this.junkBytes <= MAX_JUNK_BYTES) {
      this.onerror?.(new Error(`server ${this.opts.serverName} wrote a line that is not JSON-RPC: ${err.message}`));
      return;
    }
    this.fatal = `it wrote over ${MAX_JUNK_BYTES / 1024 / 1024} MiB of stdout lines that are not JSON-RPC (the last: ${JSON.stringify(line.slice(0, 80))}); stdout carries MCP messages only: have the server log to stderr`;
    this.onerror?.(new Error(`server ${this.opts.serverName} was stopped because ${this.fatal}`));
    // stop() signals and polls the group and does not reject; the reader must not wait for the kill.
    void this.stop(0);
  }

  private notifyClose(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    this.opts.onGone?.();
    this.readBuffer.clear();
    // The session learns why it ended first: a direct request fails in this turn and says why.
    this.onclose?.();
    this.direct.close();
  }
}

function delay(ms: number): Promise<void> {
  return cappedDelay(ms, { unref: true });
}
