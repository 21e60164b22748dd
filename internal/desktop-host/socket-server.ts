import { randomUUID } from 'node:crypto';
import { chmod, lstat, mkdir, stat, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { BridgeError, invalid, toBridgeError } from '../contract/desktop-bridge/errors.js';
import type { BridgeHost } from './host.js';
import { LineSplitter } from '../shared/line-splitter.js';
import type { CallContext } from './execution.js';

const MAX_LINE = 4 * 1024 * 1024;

type Id = string | number | null;

/** JSON-RPC's own codes, kept in details so generic clients can still tell a parse error apart. */
const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;

/**
 * JSON-RPC 2.0 over a unix socket, one message per line. Requests are handled concurrently and answered
 * as they finish (ids out of order); a bad line gets an error with id null and the connection stays open.
 * Errors carry the contract's DESKTOP_* string in `error.code` (details.jsonrpcCode for transport faults).
 */
export class BridgeSocketServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly host: BridgeHost,
    private readonly log: (msg: string) => void,
  ) {}

  async listen(path: string): Promise<void> {
    await prepareSocketPath(path);
    const server = createServer((s) => this.accept(s));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // umask keeps the socket private from its first instant; chmod makes the mode explicit.
      const old = process.umask(0o177);
      try {
        server.listen(path, () => resolve());
      } finally {
        process.umask(old);
      }
    });
    await chmod(path, 0o600);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private accept(socket: Socket): void {
    const connectionId = randomUUID();
    // Closing the connection stops its executions: nobody is left to see what they do.
    const gone = new AbortController();
    this.sockets.add(socket);
    // A line past MAX_LINE is dropped whole and answered with a parse error; the connection goes on.
    const reader = new LineSplitter({ maxLineBytes: MAX_LINE, overLong: 'drop' });
    socket.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      const lines: string[] = [];
      for (let line = reader.next(); line !== null; line = reader.next()) if (line.trim() !== '') lines.push(line.trim());
      if (reader.takeDropped() > 0)
        this.send(
          socket,
          null,
          invalid(`a line exceeded ${MAX_LINE} bytes and was dropped; send one JSON-RPC message per line`, {
            jsonrpcCode: JSONRPC_PARSE_ERROR,
          }),
        );
      // dispatch() answers every failure on the socket itself and does not reject; requests run side by side
      // (the lane orders side effects). No peer pid: Node exposes no SO_PEERCRED (decision 40).
      for (const line of lines) void this.dispatch(socket, line, { connectionId, signal: gone.signal });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      gone.abort(new BridgeError('DESKTOP_ABORTED', 'the client connection closed while the request ran'));
      this.sockets.delete(socket);
      this.host.connectionClosed(connectionId);
    });
  }

  private async dispatch(socket: Socket, line: string, ctx: CallContext): Promise<void> {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      return this.send(
        socket,
        null,
        invalid(`parse error: ${(e as Error).message}; send one JSON object per line`, { jsonrpcCode: JSONRPC_PARSE_ERROR }),
      );
    }
    const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id: Id = typeof m?.id === 'string' || typeof m?.id === 'number' ? m.id : null;
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg) || m.jsonrpc !== '2.0' || typeof m.method !== 'string')
      return this.send(
        socket,
        id,
        invalid('not a JSON-RPC 2.0 request: need {"jsonrpc":"2.0","id":…,"method":"desktop.…","params":{…}}', {
          jsonrpcCode: JSONRPC_INVALID_REQUEST,
        }),
      );
    if (m.id === undefined) return; // a notification: nothing to answer, and no method of the contract is one
    try {
      const result = await this.host.handle(m.method, m.params, ctx);
      this.write(socket, { jsonrpc: '2.0', id, result });
    } catch (e) {
      const err = toBridgeError(e);
      if (err.code === 'DESKTOP_INTERNAL_ERROR') this.log(`${m.method} failed: ${err.message}`);
      this.send(socket, id, err);
    }
  }

  private send(socket: Socket, id: Id, err: BridgeError): void {
    this.write(socket, { jsonrpc: '2.0', id, error: err.toBody() });
  }

  private write(socket: Socket, msg: unknown): void {
    if (!socket.destroyed) socket.write(`${JSON.stringify(msg)}\n`);
  }
}

/**
 * A 0700 directory we own, and no live socket at the path (a stale one left by a crash is removed). A
 * directory that already existed is never chmod'ed (it may be /tmp): if others can enter it, we refuse.
 */
async function prepareSocketPath(path: string): Promise<void> {
  const dir = dirname(path);
  const created = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) await chmod(dir, 0o700);
  const st = await stat(dir);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    throw new Error(`socket directory ${dir} belongs to uid ${st.uid}, not to us; choose a directory of your own`);
  if ((st.mode & 0o077) !== 0)
    throw new Error(
      `socket directory ${dir} is open to others (mode ${(st.mode & 0o7777).toString(8)}); use a private one (e.g. $XDG_RUNTIME_DIR/mcpd-desktop/host.sock) or chmod 700 it`,
    );
  // Ignored: absent is the answer we want; any other problem shows on listen.
  const existing = await lstat(path).catch(() => undefined);
  if (!existing) return;
  if (!existing.isSocket()) throw new Error(`${path} exists and is not a socket; remove it or choose another --socket path`);
  if (await isLive(path)) throw new Error(`another host is already listening on ${path}`);
  await unlink(path);
}

function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(path);
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}
