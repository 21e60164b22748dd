import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as IoServer } from 'socket.io';
import { DashboardSession } from './dashboard-session.js';
import { DashboardAssets } from './dashboard-assets.js';
import {
  newAccessToken,
  removeDashboardRecord,
  sha256,
  takeHandoff,
  tokenMatches,
  writeDashboardRecord,
  writeHandoff,
} from '../../../contract/dashboard/access-token.js';
import type { DashboardCore } from './dashboard-port.js';
import type { DashboardPushes } from '../../../contract/dashboard/dashboard-events.js';
import { requestRejection } from './request-guard.js';
import { LoginCodes } from './login-codes.js';

export interface DashboardOptions {
  core: DashboardCore;
  /** The core's private (0700) state directory: the token record and the handoff live there. */
  stateDir: string;
  log: (level: 'info' | 'warning', event: string, fields?: Record<string, unknown>) => void;
}

/** What the HTTP listener calls: the dashboard's routes first, then its own (/metrics, /healthz). */
export interface HttpMount {
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  // The token arrives in the URL once: never leak it onwards.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/**
 * The web dashboard on the core's HTTP listener: pages at `/` and `/app/*`, Socket.IO namespace
 * `/app`. Every request, the Socket.IO handshake included, needs the access cookie (HttpOnly,
 * SameSite=Strict), got once for a single-use login code (`mcpd open`) or the token itself in the URL,
 * and a Host/Origin naming this listener. A new token each start; a page that saw the previous
 * core stop gracefully may trade its old token for the new one (decision in docs/decisions.md).
 */
export class Dashboard {
  private readonly token = newAccessToken();
  private readonly logins = new LoginCodes(this.token);
  private readonly handoff: { tokenSha256: string; until: number } | undefined;
  private readonly assets = new DashboardAssets();
  private io?: IoServer;
  /** Socket.IO being loaded (the first dashboard socket asked for it); undefined after close. */
  private ioLoad?: Promise<IoServer | undefined>;
  private mounted = false;
  private closed = false;
  private port = 0;

  constructor(private readonly o: DashboardOptions) {
    this.handoff = takeHandoff(o.stateDir);
  }

  private get cookieName(): string {
    // Cookies ignore ports: two cores on one host must not overwrite each other's.
    return `mcpd_app_${this.port}`;
  }

  /**
   * Installs the routes on the listener (before it listens). Socket.IO is loaded when the first page opens
   * its socket, not here: it is some 10 MB of the core's RSS, and most cores never serve a dashboard page
   * (docs/benchmarks.md, the density case). Until then, this listener takes the upgrades itself.
   */
  readonly mount = (server: Server): HttpMount => {
    this.mounted = true;
    const firstUpgrade: UpgradeListener = (req, socket, head) => {
      // Nothing but Socket.IO upgrades here (as Socket.IO itself would, without waiting for a timeout).
      if (!isSocketIoPath(req)) return void socket.destroy();
      // Not awaited: the upgrade is answered (or the socket destroyed) when Socket.IO is there.
      void this.socketServer(server, firstUpgrade).then((io) => (io ? io.engine.handleUpgrade(req, socket, head) : socket.destroy()));
    };
    server.on('upgrade', firstUpgrade);
    return {
      handle: (req, res) => {
        if (this.io || !isSocketIoPath(req)) return this.handle(req, res);
        // Not awaited: an HTTP request to Socket.IO's path before its first upgrade (long-polling) waits for it.
        void this.socketServer(server, firstUpgrade).then((io) =>
          io ? io.engine.handleRequest(req, res) : res.writeHead(503).end('the dashboard is closing\n'),
        );
        return true;
      },
      close: () => this.closeIo(),
    };
  };

  /**
   * Socket.IO on the listener, loaded once. Attaching it installs its own upgrade and request handlers for
   * every later socket; `firstUpgrade` leaves in the same turn, so no upgrade is handled twice.
   */
  private socketServer(server: Server, firstUpgrade: UpgradeListener): Promise<IoServer | undefined> {
    this.ioLoad ??= import('socket.io')
      .then(({ Server: SocketIo }) => {
        server.off('upgrade', firstUpgrade);
        if (this.closed) return undefined;
        const io = (this.io = new SocketIo(server, {
          serveClient: false,
          allowRequest: (req, cb) => {
            // The handshake itself needs the cookie (or, for the renewal the /app namespace offers, the old core's).
            const why = this.refusal(req) ?? this.socketRefusal(req);
            if (why) this.o.log('warning', 'dashboard.refused', { reason: why, path: req.url?.split('?')[0] });
            cb(why ?? null, why === undefined);
          },
        }));
        io.of('/').use((_s, next) => next(new Error('mcpd serves namespace /app only')));
        io.of('/app').use((socket, next) => {
          if (this.authed(socket.handshake.headers.cookie)) return next();
          const err = new Error('unauthorized') as Error & { data?: unknown };
          err.data = { renewable: this.renewable(socket.handshake.headers.cookie) };
          next(err);
        });
        io.of('/app').on('connection', (socket) => new DashboardSession(socket, this.o.core));
        return io;
      })
      .catch((e: unknown) => {
        // The pages and /metrics keep working; the page's socket is refused and says so in the log.
        this.o.log('warning', 'dashboard.socket_unavailable', { error: e instanceof Error ? e.message : String(e) });
        return undefined;
      });
    return this.ioLoad;
  }

  /** The listener is up: publish URL and token for `mcpd open`. */
  published(url: string): void {
    this.port = Number(new URL(url).port);
    writeDashboardRecord(this.o.stateDir, { url, token: this.token, pid: process.pid });
  }

  /** The core stops gracefully: tell open pages, and let them renew with the next core. */
  stopping(): void {
    if (!this.mounted) return;
    const notice: DashboardPushes['core-stopping'] = { coreId: this.o.core.info().coreId };
    this.io?.of('/app').emit('core-stopping', notice);
    writeHandoff(this.o.stateDir, this.token);
  }

  close(): void {
    removeDashboardRecord(this.o.stateDir, this.token);
  }

  private async closeIo(): Promise<void> {
    this.closed = true;
    // Closing the engine drops the transports without a socket.io "disconnect": pages reconnect by themselves.
    this.io?.engine.close();
    await new Promise<void>((res) => (this.io ? this.io.close(() => res()) : res()));
  }

  private refusal(req: IncomingMessage): string | undefined {
    return requestRejection(req, { port: this.port });
  }

  private socketRefusal(req: IncomingMessage): string | undefined {
    const cookie = req.headers.cookie;
    return this.authed(cookie) || this.renewable(cookie)
      ? undefined
      : 'the dashboard socket needs the access cookie: open the dashboard with "mcpd open"';
  }

  private cookie(header: string | undefined): string | undefined {
    for (const part of (header ?? '').split(';')) {
      const [k, ...v] = part.trim().split('=');
      if (k === this.cookieName) return decodeURIComponent(v.join('='));
    }
    return undefined;
  }

  private authed(cookieHeader: string | undefined): boolean {
    return tokenMatches(this.cookie(cookieHeader), this.token);
  }

  private renewable(cookieHeader: string | undefined): boolean {
    const old = this.cookie(cookieHeader);
    return !!old && !!this.handoff && this.handoff.until > Date.now() && tokenMatches(sha256(old), this.handoff.tokenSha256);
  }

  private setCookie(): string {
    return `${this.cookieName}=${encodeURIComponent(this.token)}; HttpOnly; SameSite=Strict; Path=/`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path !== '/' && !path.startsWith('/app/')) return false;
    const why = this.refusal(req);
    if (why) return (this.deny(res, 403, `${why}\n`), true);
    if (path === '/app/renew') return (this.renew(req, res), true);
    if (req.method !== 'GET' && req.method !== 'HEAD') return (res.writeHead(405, { allow: 'GET, HEAD' }).end(), true);
    const login = url.searchParams.get('login');
    if (path === '/' && login !== null) return (this.logIn(login, res), true);
    const given = url.searchParams.get('token');
    if (path === '/' && given !== null) {
      if (!tokenMatches(given, this.token))
        return (this.deny(res, 401, 'this link has an old or wrong token: run "mcpd open" for a fresh one\n'), true);
      res.writeHead(303, { ...SECURITY_HEADERS, location: '/', 'set-cookie': this.setCookie() }).end();
      return true;
    }
    if (!this.authed(req.headers.cookie)) {
      return (
        this.deny(
          res,
          401,
          'the mcpd dashboard needs its access token: open it with "mcpd open" (it prints or opens a URL with the token)\n',
        ),
        true
      );
    }
    const asset = this.assets.get(path === '/' ? 'index.html' : path.slice('/app/'.length));
    if (!asset) return (this.deny(res, 404, `not found: ${path}\n`), true);
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type }).end(req.method === 'HEAD' ? undefined : asset.body);
    return true;
  }

  /** A single-use login link (what `mcpd open` hands the browser): the code is traded once for the cookie. */
  private logIn(code: string, res: ServerResponse): void {
    const why = this.logins.redeem(code);
    if (why) {
      this.o.log('warning', 'dashboard.login_refused', { reason: why });
      return this.deny(res, 401, `${why}: run "mcpd open" for a fresh one\n`);
    }
    res.writeHead(303, { ...SECURITY_HEADERS, location: '/', 'set-cookie': this.setCookie() }).end();
  }

  /** POST from a page whose core was replaced after a graceful stop: old token in, new cookie out. */
  private renew(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    if (!req.headers.origin) return this.deny(res, 403, 'renewal needs an Origin header (only the dashboard page renews)\n');
    if (this.authed(req.headers.cookie)) return void res.writeHead(204, SECURITY_HEADERS).end();
    if (!this.renewable(req.headers.cookie)) return this.deny(res, 401, 'nothing to renew: open the dashboard again with "mcpd open"\n');
    res.writeHead(204, { ...SECURITY_HEADERS, 'set-cookie': this.setCookie() }).end();
  }

  private deny(res: ServerResponse, code: number, text: string): void {
    res.writeHead(code, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' }).end(text);
  }
}

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Socket.IO's path (its default, which the dashboard page uses). */
function isSocketIoPath(req: IncomingMessage): boolean {
  return (req.url ?? '').startsWith('/socket.io/');
}
