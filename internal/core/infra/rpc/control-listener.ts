import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { SESSION_PREFACE } from '../../../contract/session/session-framing.js';
import { FirstRequestReader, SERVER_SETTINGS } from './http2-first-request.js';
import { MUX_PREFACE } from '../../../contract/session/session-mux-framing.js';
import { cappedTimeout } from '../../../shared/timer-limit.js';

export interface ControlListener {
  /** Stops accepting, ends framed sessions (destroyed after `graceMs`), resolves when all are gone. */
  close(graceMs: number): Promise<void>;
}

export interface ListenerHandlers {
  /** A gRPC (HTTP/2) connection; the bytes read while sniffing are back in the socket. */
  grpc(socket: Socket): void;
  /** A framed Session connection; `rest` = bytes after the preface. */
  session(socket: Socket, rest: Buffer): void;
  /** A multiplexed framed Session connection (MUX_PREFACE): many Sessions, one per channel. */
  mux(socket: Socket, rest: Buffer): void;
}

/**
 * One unix socket for both protocols: the first bytes tell a gRPC client (the HTTP/2 preface) from a
 * gateway opening a framed Session (SESSION_PREFACE, or MUX_PREFACE for many Sessions on one connection). Keeps one address, one permission and one
 * stale-socket check for everything the core serves.
 */
export async function listenControlSocket(
  path: string,
  handlers: ListenerHandlers,
  opts: { firstBytesTimeoutMs?: number; frameStallMs?: number } = {},
): Promise<ControlListener> {
  const sessions = new Set<Socket>();
  const track = (s: Socket) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  };
  const limits: SniffLimits = {
    firstBytesTimeoutMs: opts.firstBytesTimeoutMs ?? FIRST_BYTES_TIMEOUT_MS,
    frameStallMs: opts.frameStallMs ?? FRAME_STALL_MS,
  };
  const server = createServer((socket) =>
    sniff(socket, limits, {
      grpc: handlers.grpc,
      session: (s, rest) => {
        track(s);
        handlers.session(s, rest);
      },
      mux: (s, rest) => {
        track(s);
        handlers.mux(s, rest);
      },
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { close: (graceMs) => closeAll(server, sessions, graceMs) };
}

/** What every HTTP/2 client (gRPC included) sends first (RFC 9113 §3.4). */
const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** True while `head` agrees with `preface` as far as both go. */
function startsLike(head: Buffer, preface: Buffer): boolean {
  const n = Math.min(head.length, preface.length);
  return head.subarray(0, n).equals(preface.subarray(0, n));
}

/**
 * A connection that has not said which protocol it speaks by then is closed; so is an HTTP/2
 * connection that has not sent its first complete request by then (its client connects again).
 */
const FIRST_BYTES_TIMEOUT_MS = 10_000;
/** An HTTP/2 frame left half-sent before the first request, with no further byte for this long, ends the connection. */
const FRAME_STALL_MS = 30_000;

interface SniffLimits {
  firstBytesTimeoutMs: number;
  frameStallMs: number;
}

function sniff(socket: Socket, limits: SniffLimits, handlers: ListenerHandlers): void {
  // A peer that resets before saying anything must not become an uncaught 'error'.
  socket.on('error', () => {});
  const silent = cappedTimeout(() => socket.destroy(), limits.firstBytesTimeoutMs);
  let stall: NodeJS.Timeout | undefined;
  socket.once('close', () => {
    clearTimeout(silent);
    clearTimeout(stall);
  });
  let head: Buffer = Buffer.alloc(0);
  let http2: FirstRequestReader | undefined;
  const decided = () => {
    clearTimeout(silent);
    clearTimeout(stall);
    socket.off('data', onData);
  };
  const refuse = () => {
    decided();
    socket.destroy();
  };
  /** HTTP/2 up to its first request (http2-first-request.ts): a frame left half-sent goes after the stall timeout. */
  const onHttp2 = (reader: FirstRequestReader, chunk: Buffer) => {
    const state = reader.feed(chunk);
    clearTimeout(stall);
    if (state.kind === 'bad') return refuse();
    if (state.kind === 'ready') {
      decided();
      socket.pause();
      socket.unshift(state.bytes);
      return handlers.grpc(socket);
    }
    if (state.kind === 'settings') socket.write(SERVER_SETTINGS);
    if (reader.midFrame) stall = cappedTimeout(() => socket.destroy(), limits.frameStallMs);
  };
  const onData = (chunk: Buffer) => {
    if (http2) return onHttp2(http2, chunk);
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const session = startsLike(head, SESSION_PREFACE);
    const mux = startsLike(head, MUX_PREFACE);
    const grpc = startsLike(head, HTTP2_PREFACE);
    if (!session && !mux && !grpc) {
      // Neither protocol: HTTP/2 would keep such a connection open without answering, so close it.
      refuse();
    } else if (grpc && head.length >= HTTP2_PREFACE.length) {
      http2 = new FirstRequestReader(head.subarray(0, HTTP2_PREFACE.length));
      onHttp2(http2, head.subarray(HTTP2_PREFACE.length));
    } else if (session && head.length >= SESSION_PREFACE.length) {
      decided();
      handlers.session(socket, head.subarray(SESSION_PREFACE.length));
    } else if (mux && head.length >= MUX_PREFACE.length) {
      decided();
      handlers.mux(socket, head.subarray(MUX_PREFACE.length));
    }
  };
  socket.on('data', onData);
}

async function closeAll(server: NetServer, sessions: Set<Socket>, graceMs: number): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  const gone = [...sessions].map((s) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve()))));
  for (const s of sessions) s.end();
  const force = cappedTimeout(() => sessions.forEach((s) => s.destroy()), graceMs);
  await Promise.all([stopped, ...gone]);
  clearTimeout(force);
}
