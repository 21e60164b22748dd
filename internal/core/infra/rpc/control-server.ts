import { Server, ServerCredentials } from '@grpc/grpc-js';
import { stream, unary } from './handler-kit.js';
import type { ControlApi, Door } from '../../../contract/control/control.js';
import { ControlPlaneService, type ControlPlaneServer } from '../../../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../../../contract/gen/mcpd/control/v1/control.js';
import { statusToPb } from '../../../contract/session/convert.js';
import { GrpcSessionStream } from './grpc-session-stream.js';
import { DEFAULT_CHANNELS_PER_CONNECTION, DEFAULT_HELLO_TIMEOUT_MS, serveSession, type SessionServeOptions } from './session-server.js';
import { MuxServerConnection } from './mux-session-server.js';
import { DEFAULT_SESSION_OUTBOUND_BYTES } from './outbound-gate.js';
import { prepareSocketPath } from '../../../contract/session/socket-path.js';
import { listenControlSocket } from './control-listener.js';
import { FramedSessionStream } from '../../../contract/session/framed-session-stream.js';
import { chmodSync, unlinkSync } from 'node:fs';
import { AREAS } from '../../../contract/areas/all-areas.js';
import { grpcAreaHandlers } from './grpc-areas.js';
import { GrpcOutputBudget } from './grpc-output-budget.js';
import { cappedTimeout } from '../../../shared/timer-limit.js';
import type { SessionClientMessage, SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';
import { decodeClientMessage, encodeServerMessage } from '../../../contract/session/session-wire.js';

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
  // A Session answer's result is encoded once (session-wire.ts), not grown, copied out and copied again.
  session: { ...ControlPlaneService.session, responseSerialize: encodeServerMessage, requestDeserialize: decodeClientMessage },
};

/**
 * Core administration here; every area (tools, resources, prompts, logs, context) comes from its one
 * declaration (internal/contract/areas/) through the gRPC projector.
 */
function handlers(api: ControlApi, sessions: ControlApi, session: SessionServeOptions): ControlPlaneServer {
  const outputs = outputBudget(session);
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
    getRuntimeStatus: unary(() => statusToPb(api.status())),
    watchRuntimeStatus: stream(() => api.watchStatus(), statusToPb, outputs),
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
    session: (call) => serveSession(sessions, new GrpcSessionStream(call), session),
    // Typed per area declaration; areas.test.ts proves every ControlPlane RPC has its handler.
    ...grpcAreaHandlers(api, AREAS, outputs),
  } as ControlPlaneServer;
}

/** One budget for every server stream of the control plane (its connections are shared by all of them). */
function outputBudget(session: SessionServeOptions): GrpcOutputBudget {
  return new GrpcOutputBudget(session.maxOutboundBytes ?? DEFAULT_SESSION_OUTBOUND_BYTES, {
    callsHeld: (queued) =>
      session.log?.('warning', 'gRPC call output over its budget; further calls on the connection wait until it is read', { queued }),
    streamsHeld: () =>
      session.log?.(
        'warning',
        'gRPC stream output over its budget; watches keep only their newest snapshot and logs drop their oldest entries until it is read',
        {},
      ),
  });
}

export interface ControlServer {
  socket: string;
  close(): Promise<void>;
}

/**
 * Binds the control plane (plus health and reflection) to a private unix socket. The same socket takes
 * framed Session connections from gateways (see control-listener.ts and decision 16).
 */
export async function startControlServer(door: Door, socketPath: string, session: SessionServeOptions = {}): Promise<ControlServer> {
  await prepareSocketPath(socketPath);
  // Each face is given its view of the door: its calls pass the door's interceptors knowing where they came from.
  const api = door.for('session');
  const server = new Server({
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    // Nothing reads channelz here, and its per-call bookkeeping costs ~10% of a unary call.
    'grpc.enable_channelz': 0,
    // A connection that sent only the HTTP/2 preface, or stopped mid-frame, holds no call: it goes.
    'grpc.max_connection_idle_ms': GRPC_IDLE_MS,
  });
  server.addService(SERVICE, handlers(door.for('grpc'), api, session));
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const extras = healthAndReflectionOnce(server);
  const listener = await listenControlSocket(
    socketPath,
    {
      grpc: (socket) => {
        // Handled both ways: the sniffer paused the socket, so what the client sent waits in it until the
        // connection is injected; extras that failed to load close it (the client sees the connection fail).
        void extras().then(
          () => {
            if (!socket.destroyed) injector.injectConnection(socket);
          },
          () => socket.destroy(),
        );
      },
      session: (socket, rest) => {
        const stream = new FramedSessionStream<SessionClientMessage, SessionServerMessage>(
          socket,
          SERVER_CODEC,
          session.frameStallMs ?? FRAME_STALL_MS,
          session.batcher,
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
    },
    { frameStallMs: session.frameStallMs ?? FRAME_STALL_MS },
  );
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

/**
 * Adds the health and reflection services on the first gRPC connection, not at start: building them (their
 * modules parse .proto files when loaded, reflection encodes every descriptor) took about a fifth of the
 * core's start, which a client's gateway — a Session, never gRPC — waited for (docs/benchmarks.md, decision 56).
 */
function healthAndReflectionOnce(server: Server): () => Promise<void> {
  let added: Promise<void> | undefined;
  return () =>
    (added ??= import('./reflection.js').then(({ addHealth, addReflection }) => {
      addHealth(server);
      addReflection(server);
    }));
}

const CLOSE_GRACE_MS = 2000;
/** A partial Session frame with no further byte for this long ends its connection. */
const FRAME_STALL_MS = 30_000;
/** A gRPC connection with no call open for this long is closed (clients reconnect by themselves). */
const GRPC_IDLE_MS = 120_000;

const SERVER_CODEC = {
  encode: (m: SessionServerMessage) => encodeServerMessage(m),
  decode: (b: Uint8Array) => decodeClientMessage(b),
};
