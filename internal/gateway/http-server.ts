import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SessionEventStore } from './session-event-store.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';
import { boundUnread } from './bound-unread.js';
import type { SessionGateway } from './session-gateway.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { allowedHostnames, bearerMatches, isLoopbackAddress, rebindingRejection, urlHost } from '../shared/http-guard.js';
import { cappedInterval } from '../shared/timer-limit.js';
import { LanePool } from './era2026/lanes.js';
import { HttpStatelessEndpoint } from './era2026/http-endpoint.js';
import { isStatelessRequest } from './era2026/era-of.js';

/** How long a client whose SSE stream dropped waits before reconnecting (sent as the SSE `retry` field). */
const SSE_RETRY_MS = 1000;

export type { SessionGateway } from './session-gateway.js';

export interface HttpGatewayOptions {
  host: string;
  /** 0 picks a free port; read the real one from the returned url. */
  port: number;
  /** Required unless `host` is a loopback address; when set, every request must carry it as a bearer token. */
  token?: string;
  /** Builds the gateway for a new MCP session. */
  newSession: () => SessionGateway;
  log: (msg: string) => void;
  /** A session with no request in flight for this long is closed (clients often never send DELETE). */
  idleMs?: number;
  limits?: HttpLimits;
  /** The caller and version 2026-07-28 requests are served as (their requestState is bound to the caller). */
  caller?: string;
  version?: string;
}

export interface HttpGateway {
  /** e.g. http://127.0.0.1:43123/mcp */
  readonly url: string;
  sessionCount(): number;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const DEFAULT_IDLE_MS = 30 * 60_000;

interface Entry {
  transport: StreamableHTTPServerTransport;
  gateway: SessionGateway;
  inFlight: number;
  lastSeen: number;
  closed: boolean;
  openedAt: number;
  /** Requests seen; 1 = only `initialize` so far. */
  requests: number;
}

/** Thrown for a configuration that must not start (e.g. a non-loopback bind without a token). */
export class HttpGatewayConfigError extends Error {}

/**
 * Serves MCP streamable HTTP on `host:port` at /mcp. Each Mcp-Session-Id is its own gateway. A loopback
 * bind refuses foreign Host/Origin headers (DNS rebinding); any other bind requires a bearer token.
 */
export async function startHttpGateway(o: HttpGatewayOptions): Promise<HttpGateway> {
  const loopback = isLoopbackAddress(o.host);
  if (!loopback && !o.token) {
    throw new HttpGatewayConfigError(
      `refusing to serve MCP on non-loopback address ${o.host} without a token: anyone who can reach it would act as this caller. ` +
        'Pass --token TOKEN (or set MCPD_HTTP_TOKEN) and give clients "Authorization: Bearer TOKEN", or bind 127.0.0.1.',
    );
  }
  const sessions = new Map<string, Entry>();
  const allowed = allowedHostnames(o.host);
  const idleMs = o.idleMs ?? DEFAULT_IDLE_MS;
  const limits = o.limits ?? DEFAULT_HTTP_LIMITS;
  // 2026-07-28 requests run on lanes: gateways like a session's, held one request at a time.
  const stateless = new HttpStatelessEndpoint({
    lanes: new LanePool({
      newSession: o.newSession,
      max: limits.maxSessions,
      waitMs: limits.laneWaitMs,
      listens: { total: limits.maxListens, perClient: limits.maxListensPerClient },
      raise: '--max-sessions or MCPD_HTTP_LANE_WAIT_MS',
      version: o.version ?? '0',
      log: o.log,
    }),
    caller: o.caller ?? '',
    version: o.version ?? '0',
    log: o.log,
  });

  /** Room for one more session: closes the oldest idle one at the cap; false when every one is busy. */
  const makeRoom = async (): Promise<boolean> => {
    if (sessions.size < limits.maxSessions) return true;
    let oldest: [string, Entry] | undefined;
    for (const [id, e] of sessions) if (e.inFlight <= 0 && (!oldest || e.lastSeen < oldest[1].lastSeen)) oldest = [id, e];
    if (!oldest) return false;
    await closeEntry(oldest[0], oldest[1], `evicted: the gateway holds at most ${limits.maxSessions} sessions`);
    return true;
  };

  const closeEntry = async (id: string, e: Entry, why: string): Promise<void> => {
    if (e.closed) return;
    e.closed = true;
    sessions.delete(id);
    o.log(`http session ${id} closed (${why})`);
    // Ignored: closing a gateway whose client has gone: a failed close has no one to report to.
    await e.gateway.close().catch(() => {});
  };

  const openSession = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const gateway = o.newSession();
    let registered = false;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Resumability (SEP-1699): events carry ids, a dropped stream resumes with Last-Event-ID.
      eventStore: new SessionEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        registered = true;
        sessions.set(id, entry);
        o.log(`http session ${id} opened`);
      },
      onsessionclosed: (id) => void closeEntry(id, entry, 'client sent DELETE'),
    });
    const entry: Entry = { transport, gateway, inFlight: 1, lastSeen: Date.now(), closed: false, openedAt: Date.now(), requests: 1 };
    // Set before connect: the SDK chains its own handler after ours.
    transport.onclose = () => {
      // closeEntry() logs and swallows a failed close itself, so it does not reject; onclose cannot wait.
      if (registered && transport.sessionId) void closeEntry(transport.sessionId, entry, 'transport closed');
    };
    track(entry, res);
    await gateway.connect(transport);
    await transport.handleRequest(req, res, body);
    // Ignored: the session never registered; its error already went back as the HTTP answer.
    if (!registered) await gateway.close().catch(() => {});
  };

  const track = (e: Entry, res: ServerResponse): void => {
    e.lastSeen = Date.now();
    boundUnread(res, limits.sseUnreadBytes, (unread) =>
      o.log(
        `http session ${e.transport.sessionId ?? '(new)'}: SSE stream closed, its client left ${unread} bytes unread ` +
          `(over MCPD_HTTP_SSE_UNREAD_BYTES=${limits.sseUnreadBytes}); it may resume with Last-Event-ID`,
      ),
    );
    res.once('close', () => {
      e.inFlight--;
      e.lastSeen = Date.now();
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (loopback) {
      const why = rebindingRejection(req.headers.host, header(req, 'origin'), allowed, (http.address() as AddressInfo | null)?.port);
      if (why) return reply(res, 403, -32000, `Forbidden: ${why}`);
    }
    if (o.token && !bearerMatches(header(req, 'authorization'), o.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="mcpd"');
      return reply(res, 401, -32001, 'Unauthorized: send "Authorization: Bearer <token>" with the token mcpdmcp was started with');
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== MCP_PATH) return reply(res, 404, -32601, `Not found: the MCP endpoint is ${MCP_PATH}`);

    const sid = header(req, 'mcp-session-id');
    if (sid !== undefined) {
      const e = sessions.get(sid);
      if (!e) return reply(res, 404, -32001, `Session not found: ${sid} (it ended or never existed); initialize a new one`);
      e.inFlight++;
      e.requests++;
      track(e, res);
      return e.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; POST an initialize request first');
    const body = await readJson(req, res);
    if (body === undefined) return;
    // No session and no 2025-11-25 initialize: a 2026-07-28 request (which refuses what it must).
    if (isStatelessRequest(req, body)) return stateless.handle(req, res, body);
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return reply(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header and the body is not an initialize request');
    }
    if (!(await makeRoom())) {
      return reply(
        res,
        503,
        -32000,
        `Service unavailable: all ${limits.maxSessions} sessions are busy; retry later, or raise --max-sessions`,
      );
    }
    return openSession(req, res, body);
  };

  // connectionsCheckingInterval: how often Node enforces the request/headers timeouts.
  const http = createServer(
    { requestTimeout: limits.requestTimeoutMs, headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1000 },
    (req, res) => {
      handle(req, res).catch((e: Error) => {
        o.log(`http request failed: ${e.message}`);
        if (!res.headersSent) reply(res, 500, -32603, `Internal error: ${e.message}`);
        else res.end();
      });
    },
  );
  http.maxConnections = limits.maxConnections;
  await listen(http, o.host, o.port);
  const port = (http.address() as AddressInfo).port;

  const reaper = cappedInterval(
    () => {
      const now = Date.now();
      for (const [id, e] of sessions) {
        // closeEntry() does not reject (see above); the sweep closes sessions side by side.
        if (e.inFlight <= 0 && e.lastSeen < now - idleMs) void closeEntry(id, e, `idle for ${idleMs} ms`);
        else if (e.requests === 1 && e.openedAt < now - limits.initTimeoutMs) {
          // Likewise.
          void closeEntry(id, e, `nothing after initialize for ${limits.initTimeoutMs} ms`);
        }
      }
    },
    Math.max(250, Math.min(idleMs, limits.initTimeoutMs, 60_000) / 4),
  );
  reaper.unref();

  return {
    url: `http://${urlHost(o.host)}:${port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(reaper);
      await Promise.all([...sessions].map(([id, e]) => closeEntry(id, e, 'gateway shutting down')));
      await stateless.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The parsed JSON body, or undefined after answering the error itself. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      reply(res, 413, -32000, `Request body larger than ${MAX_BODY_BYTES} bytes`);
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (e) {
    reply(res, 400, -32700, `Parse error: the body is not JSON (${(e as Error).message})`);
    return undefined;
  }
}

function listen(http: HttpServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}
