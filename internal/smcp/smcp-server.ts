/**
 * An SMCP Server node: HTTP + Socket.IO, namespace /smcp, optional Redis scale-out. With Redis, rooms and routed
 * acks travel through @socket.io/redis-adapter and seats live in the RedisRegistry; without it everything is
 * in this process.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { SMCP_NAMESPACE } from '../contract/smcp/events.js';
import { isLoopbackAddress, urlHost } from '../shared/http-guard.js';
import { DEFAULT_IN_FLIGHT_LIMITS, type InFlightLimits } from './agent-calls.js';
import { apiKeyMiddleware, handshakeGuard } from './connection-guard.js';
import type { SmcpContext } from './context.js';
import { dispatcher } from './dispatch.js';
import { Forwarder } from './forwarder.js';
import { MemoryRegistry } from './memory-registry.js';
import { NodeLink } from './node-link.js';
import { startHeartbeat } from './node-liveness.js';
import { leave, onDisconnect } from './office-handlers.js';
import { nodeSecretProblem } from './node-secret.js';
import { connectRedis, RedisUnreachableError } from './redis-clients.js';
import { RedisRegistry } from './redis-registry.js';
import { SeatCache } from './seat-cache.js';
import type { Member, OfficeRegistry } from './registry.js';
import { memberOf } from './session.js';

export interface SmcpServerOptions {
  host: string;
  port: number;
  /** Required for a non-loopback host. */
  apiKey?: string;
  redisUrl?: string;
  /** Required with `redisUrl`: keys the seal of the nodes' messages on Redis (node-secret.ts). */
  nodeSecret?: string;
  /** Where the node secret came from, for error messages (default SMCP_NODE_SECRET). */
  nodeSecretEnv?: string;
  log: (msg: string) => void;
  /** Largest accepted event payload (JSON bytes); bigger ones get a 400. Default 1 MiB. */
  maxPayloadBytes?: number;
  /** Largest transport packet (computer acks included); bigger ones close the connection. Default 16 MiB. */
  maxPacketBytes?: number;
  /** Caps on routed requests waiting for answers (per agent connection, per computer). */
  inFlight?: Partial<InFlightLimits>;
  /** Redis heartbeat TTL of this node. Default 6 s. */
  nodeTtlMs?: number;
}

export class SmcpConfigError extends Error {}

export interface SmcpServer {
  url: string;
  port: number;
  node: string;
  io: Server;
  close(): Promise<void>;
}

const GONE_EVENT = 'mcpd:smcp-member-gone';

export async function startSmcpServer(o: SmcpServerOptions): Promise<SmcpServer> {
  const loopback = isLoopbackAddress(o.host);
  if (!loopback && !o.apiKey)
    throw new SmcpConfigError(
      `refusing to listen on non-loopback address ${o.host} without an API key: anyone who can reach it could act as any agent or computer. ` +
        'Set the API key environment variable (see --api-key-env, default SMCP_API_KEY), or listen on 127.0.0.1.',
    );
  if (o.redisUrl && !o.apiKey)
    throw new SmcpConfigError(
      'refusing to share offices through Redis without an API key: it keys the signature of every message the nodes exchange there, ' +
        'so that anyone who can reach Redis cannot route calls. Set the API key environment variable (see --api-key-env, default SMCP_API_KEY) ' +
        'to the same value on every node.',
    );
  const secretProblem = o.redisUrl ? nodeSecretProblem(o.nodeSecret, o.apiKey, o.nodeSecretEnv ?? 'SMCP_NODE_SECRET') : undefined;
  if (secretProblem) throw new SmcpConfigError(secretProblem);
  const http = createServer();
  const maxPayloadBytes = o.maxPayloadBytes ?? 1024 * 1024;
  const io = new Server(http, {
    serveClient: false,
    maxHttpBufferSize: o.maxPacketBytes ?? 16 * 1024 * 1024,
    allowRequest: handshakeGuard(o.host, loopback),
  });
  const node = randomUUID();
  const redis = o.redisUrl
    ? await connectRedis(o.redisUrl, io, o.nodeSecret ?? '', o.log).catch((e: unknown) => {
        throw e instanceof RedisUnreachableError ? new SmcpConfigError(e.message) : e;
      })
    : undefined;
  const nsp = io.of(SMCP_NAMESPACE);
  const registry: OfficeRegistry = redis
    ? new RedisRegistry({ client: redis.data, node, ttlMs: o.nodeTtlMs ?? 6000 })
    : new MemoryRegistry();
  const link = redis ? await NodeLink.start(nsp, node, redis.pub, redis.sub, o.log) : undefined;
  const forwarder = new Forwarder(nsp, node, link);
  const seats = redis ? new SeatCache() : undefined;
  const ctx: SmcpContext = {
    nsp,
    registry,
    forwarder,
    node,
    log: o.log,
    limits: { ...DEFAULT_IN_FLIGHT_LIMITS, ...o.inFlight },
    seats,
    memberGone: (m: Member) => {
      if (m.role !== 'computer') return;
      forwarder.gone(m);
      seats?.forget(m);
      if (redis) nsp.serverSideEmit(GONE_EVENT, m);
    },
  };
  if (redis)
    nsp.on(GONE_EVENT, (m: Member) => {
      forwarder.gone(m);
      seats?.forget(m);
    });
  io.use((_socket, next) => next(new Error(`this is an SMCP server: connect to the ${SMCP_NAMESPACE} namespace`)));
  nsp.use(apiKeyMiddleware(o.apiKey));
  const dispatch = dispatcher(ctx, { maxPayloadBytes });
  nsp.on('connection', (socket) => {
    dispatch(socket);
    socket.on('disconnect', () => onDisconnect(ctx, socket));
  });

  const stopBeats = redis ? startHeartbeat(ctx, registry as RedisRegistry, o.nodeTtlMs ?? 6000) : undefined;
  await stopBeats?.first;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, o.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const url = `http://${urlHost(o.host)}:${port}`;
  o.log(`listening on ${url}${SMCP_NAMESPACE}${redis ? ` (node ${node}, redis)` : ''}${o.apiKey ? ', API key required' : ''}`);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      stopBeats?.stop();
      // Free this node's seats first, with notify:leave_office, while the adapter can still reach other nodes;
      // bounded, since Redis may be the thing that is gone (the others then sweep our seats).
      const leaving = [...nsp.sockets.values()].map((socket) => {
        const m = memberOf(socket, node);
        // Ignored: best effort while stopping: other nodes sweep a seat we could not free.
        return m ? leave(ctx, socket, m).catch(() => undefined) : undefined;
      });
      await Promise.race([Promise.all(leaving), new Promise((r) => setTimeout(r, 3000).unref())]);
      await closeIo(io, http);
      // Ignored: stopping: the registry's connections are closed below whatever this says.
      await registry.close().catch(() => undefined);
      // quit() waits for Redis to answer; a client still reconnecting to a Redis that is gone never would.
      if (redis) await Promise.allSettled(redis.raw.map((c) => (c.isReady ? c.quit() : c.isOpen ? c.disconnect() : undefined)));
    })());
  return { url, port, node, io, close };
}

function closeIo(io: Server, http: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    // io.close's promise and its callback settle together; the callback is the one that cannot reject.
    void io.close(() => resolve());
    http.closeAllConnections?.();
  });
}
