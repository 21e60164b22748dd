import { Server, ServerCredentials, type ServerWritableStream } from '@grpc/grpc-js';
import { stream, unary } from './handler-kit.js';
import type { ControlApi, ToolPage } from '../../domain/control.js';
import {
  ControlPlaneService,
  SessionClientMessage,
  SessionServerMessage,
  type ControlPlaneServer,
} from '../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';
import { collisionToPb, snapshotToPb, statusToPb, toolToPb } from './convert.js';
import { decodeObject, encodeJson } from './json-bytes.js';
import { addHealth, addReflection } from './reflection.js';
import { DEFAULT_CHANNELS_PER_CONNECTION, DEFAULT_HELLO_TIMEOUT_MS, serveSession, type SessionServeOptions } from './session-server.js';
import { MuxServerConnection } from './mux-session-server.js';
import { DEFAULT_SESSION_OUTBOUND_BYTES } from './outbound-gate.js';
import { prepareSocketPath } from './socket-path.js';
import { listenControlSocket } from './control-listener.js';
import { FramedSessionStream } from './framed-session-stream.js';
import { toServiceError } from './status-map.js';
import { chmodSync, unlinkSync } from 'node:fs';
import { contextHandlers } from './areas/context.js';
import { logHandlers } from './areas/logs.js';
import { promptHandlers } from './areas/prompts.js';
import { resourceHandlers } from './areas/resources.js';
import { cappedTimeout } from '../../domain/timer-limit.js';

function callTool(api: ControlApi) {
  return (call: ServerWritableStream<pb.CallToolRequest, pb.CallToolEvent>) => {
    const ac = new AbortController();
    call.on('cancelled', () => ac.abort(new Error('the gRPC call was cancelled')));
    const deadline = call.getDeadline();
    const deadlineMs =
      deadline instanceof Date ? deadline.getTime() - Date.now() : Number.isFinite(deadline) ? Number(deadline) - Date.now() : undefined;
    const asked = call.request.timeoutMs > 0 ? call.request.timeoutMs : undefined;
    const timeoutMs = [asked, deadlineMs]
      .filter((x): x is number => x !== undefined && x > 0)
      .reduce<number | undefined>((a, b) => (a === undefined ? b : Math.min(a, b)), undefined);
    Promise.resolve()
      .then(() =>
        api.callTool(call.request.caller || 'default', call.request.name, decodeObject(call.request.argumentsJson, 'arguments_json'), {
          routingKey: call.request.routingKey || undefined,
          signal: ac.signal,
          timeoutMs,
          onProgress: (p) =>
            call.write({
              progress: { progress: p.progress, total: p.total ?? 0, hasTotal: p.total !== undefined, message: p.message ?? '' },
            }),
        }),
      )
      .then(
        (result) => {
          call.write({ resultJson: encodeJson(result) });
          call.end();
        },
        (e: unknown) => call.emit('error', toServiceError(e)),
      );
  };
}

/** Listing responses by page key, a few dozen at most (oldest dropped first). */
class PageCache {
  private readonly map = new Map<string, pb.ListToolsResponse>();
  get(key: string, build: () => pb.ListToolsResponse): pb.ListToolsResponse {
    let v = this.map.get(key);
    if (!v) {
      v = build();
      this.map.set(key, v);
      if (this.map.size > 64) this.map.delete(this.map.keys().next().value as string);
    }
    return v;
  }
}

const encodedResponses = new WeakMap<pb.ListToolsResponse, Buffer>();

/** ControlPlaneService with ListTools responses encoded once per response object. */
const SERVICE = {
  ...ControlPlaneService,
  listTools: {
    ...ControlPlaneService.listTools,
    responseSerialize: (value: pb.ListToolsResponse): Buffer => {
      let b = encodedResponses.get(value);
      if (!b) {
        b = ControlPlaneService.listTools.responseSerialize(value);
        encodedResponses.set(value, b);
      }
      return b;
    },
  },
};

function handlers(api: ControlApi, session: SessionServeOptions): ControlPlaneServer {
  const pages = new PageCache();
  return {
    getInfo: unary(() => {
      const i = api.info();
      return {
        version: i.version,
        pid: i.pid,
        configDir: i.configDir,
        socket: i.socket,
        startedAtUnixMs: i.startedAt,
        coreId: i.coreId,
        profiles: i.profiles,
        callers: i.callers,
      };
    }),
    registerCaller: unary((req: pb.RegisterCallerRequest) => {
      const s = api.registerCaller(req.caller || 'default', { pid: req.pid || undefined, clientName: req.clientName || undefined });
      return { sessionId: s.id, profile: s.profile };
    }),
    unregisterCaller: unary((req: pb.UnregisterCallerRequest) => {
      api.unregisterCaller(req.sessionId);
      return {};
    }),
    listTools: unary(async (req: pb.ListToolsRequest) => {
      const page = await api.listTools(req.caller || 'default', req.cursor || undefined, req.pageSize > 0 ? req.pageSize : undefined);
      // A page is fully determined by its snapshot, cursor and size: reuse the built response, whose
      // encoding the service definition below memoises.
      const key = `${page.etag}|${req.cursor}|${req.pageSize}|${page.tools.length}`;
      if (page.failures?.length) {
        // Failures come and go without the list changing: such a response is not memoised.
        return { ...pages.get(key, () => listToolsResponse(page)), failures: page.failures.map((f) => ({ ...f })) };
      }
      return pages.get(key, () => listToolsResponse(page));
    }),
    watchTools: stream((req: pb.WatchToolsRequest) => api.watchTools(req.caller || 'default', req.lastEtag || undefined), snapshotToPb),
    callTool: callTool(api),
    getRuntimeStatus: unary(() => statusToPb(api.status())),
    watchRuntimeStatus: stream(() => api.watchStatus(), statusToPb),
    reload: unary(async () => {
      const r = await api.reload();
      return {
        applied: r.applied,
        issues: r.issues,
        poolsAdded: r.poolsAdded,
        poolsRemoved: r.poolsRemoved,
        profilesChanged: r.profilesChanged,
      };
    }),
    stop: unary(() => api.requestStop()),
    session: (call) => serveSession(api, call, session),
    ...resourceHandlers(api),
    ...promptHandlers(api),
    ...logHandlers(api),
    ...contextHandlers(api),
  };
}

export interface ControlServer {
  socket: string;
  close(): Promise<void>;
}

/**
 * Binds the control plane (plus health and reflection) to a private unix socket. The same socket takes
 * framed Session connections from gateways (see control-listener.ts and decision 16).
 */
export async function startControlServer(api: ControlApi, socketPath: string, session: SessionServeOptions = {}): Promise<ControlServer> {
  await prepareSocketPath(socketPath);
  const server = new Server({
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    // Nothing reads channelz here, and its per-call bookkeeping costs ~10% of a unary call.
    'grpc.enable_channelz': 0,
    // A connection that sent only the HTTP/2 preface, or stopped mid-frame, holds no call: it goes.
    'grpc.max_connection_idle_ms': GRPC_IDLE_MS,
  });
  server.addService(SERVICE, handlers(api, session));
  addHealth(server);
  addReflection(server);
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const listener = await listenControlSocket(socketPath, {
    grpc: (socket) => injector.injectConnection(socket),
    session: (socket, rest) => {
      const stream = new FramedSessionStream<pb.SessionClientMessage, pb.SessionServerMessage>(
        socket,
        SERVER_CODEC,
        session.frameStallMs ?? FRAME_STALL_MS,
      );
      serveSession(api, stream, session);
      stream.receive(rest);
    },
    mux: (socket, rest) => {
      const conn = new MuxServerConnection(socket, {
        serve: (channel) => serveSession(api, channel, session),
        maxChannels: session.maxChannelsPerConnection ?? DEFAULT_CHANNELS_PER_CONNECTION,
        maxOutboundBytes: session.maxOutboundBytes ?? DEFAULT_SESSION_OUTBOUND_BYTES,
        frameStallMs: session.frameStallMs ?? FRAME_STALL_MS,
        idleMs: session.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS,
        log: session.log,
      });
      conn.receive(rest);
    },
  });
  chmodSync(socketPath, 0o600);
  return {
    socket: socketPath,
    close: async () => {
      const grpcDone = new Promise<void>((resolve) => {
        const timer = cappedTimeout(() => server.forceShutdown(), CLOSE_GRACE_MS);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await Promise.all([grpcDone, listener.close(CLOSE_GRACE_MS)]);
      try {
        unlinkSync(socketPath);
      } catch {
        // already gone
      }
    },
  };
}

const CLOSE_GRACE_MS = 2000;
/** A partial Session frame with no further byte for this long ends its connection. */
const FRAME_STALL_MS = 30_000;
/** A gRPC connection with no call open for this long is closed (clients reconnect by themselves). */
const GRPC_IDLE_MS = 120_000;

const SERVER_CODEC = {
  encode: (m: pb.SessionServerMessage) => SessionServerMessage.encode(m).finish(),
  decode: (b: Uint8Array) => SessionClientMessage.decode(b),
};

function listToolsResponse(page: ToolPage): pb.ListToolsResponse {
  return {
    etag: page.etag,
    tools: page.tools.map(toolToPb),
    nextCursor: page.nextCursor ?? '',
    collisions: page.collisions.map(collisionToPb),
    failures: [],
  };
}
