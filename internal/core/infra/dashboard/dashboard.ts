import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as IoServer, Socket } from 'socket.io';
import { DashboardSession } from './dashboard-session.js';
import { DashboardAssets } from './dashboard-assets.js';
import {
  newAccessToken,
  removeDashboardRecord,
  takeHandoff,
  tokenMatches,
  writeDashboardRecord,
  writeHandoff,
} from '../../../contract/dashboard/access-token.js';
import { removeLoginPage } from '../../../contract/dashboard/login-page.js';
import type { DashboardCore } from './dashboard-port.js';
import type { DashboardPushes } from '../../../contract/dashboard/dashboard-events.js';
import { requestRejection } from './request-guard.js';
import { LoginCodes } from './login-codes.js';
import { LoginSessions } from './login-sessions.js';
import { pageWithLogin, presented } from './page-credential.js';
import { AppFrames } from './app-frames.js';

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

export const SECURITY_HEADERS = {
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
 * `/app`. The page (static code) is served to any request whose Host/Origin name this listener; the
 * socket, the handshake included, needs a login's own value, which the page got once for a single-use
 * login code (`mcpd open`) or the token itself in the URL, and presents explicitly (never a cookie:
 * browsers send 127.0.0.1 cookies to every port). Token holders may present the token as a bearer. A new
 * token each start; a page that saw the previous core stop gracefully may renew its login once with the
 * next one (decision in docs/decisions.md).
 */
export class Dashboard {
  private readonly token = newAccessToken();
  private readonly codes = new LoginCodes(this.token);
  private readonly logins: LoginSessions;
  /** The open sockets of each login, closed when it ends. */
  private readonly sockets = new Map<string, Set<Socket>>();
  private readonly assets = new DashboardAssets();
  private readonly frames: AppFrames;
  private io?: IoServer;
  /** Socket.IO being loaded (the first dashboard socket asked for it); undefined after close. */
  private ioLoad?: Promise<IoServer | undefined>;
  private mounted = false;
  private closed = false;
  private port = 0;

  constructor(private readonly o: DashboardOptions) {
    // Each app's CSP is logged when its frame is prepared, for review (as the MCP Apps spec asks of hosts).
    this.frames = new AppFrames((fields) => o.log('info', 'dashboard.app_frame', fields));
    this.logins = new LoginSessions(takeHandoff(o.stateDir)?.logins ?? [], (hash) => this.closeSockets(hash));
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
            // The handshake itself needs a login (or, for the renewal the /app namespace offers, the old core's).
            const why = this.refusal(req) ?? this.socketRefusal(req);
            if (why) this.o.log('warning', 'dashboard.refused', { reason: why, path: req.url?.split('?')[0] });
            cb(why ?? null, why === undefined);
          },
        }));
        io.of('/').use((_s, next) => next(new Error('mcpd serves namespace /app only')));
        io.of('/app').use((socket, next) => {
          const c = presented(socket.request);
          if (this.authed(c)) return next();
          const err = new Error('unauthorized') as Error & { data?: unknown };
          err.data = { renewable: this.logins.renewable(c.session) };
          next(err);
        });
        io.of('/app').on('connection', (socket) => {
          this.track(socket);
          new DashboardSession(socket, this.o.core, this.frames);
        });
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
    writeHandoff(this.o.stateDir, this.logins.handoff());
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
    const c = presented(req);
    return this.authed(c) || this.logins.renewable(c.session)
      ? undefined
      : 'the dashboard socket needs a login: open the dashboard with "mcpd open"';
  }

  /** A live login's value, or (for whoever holds it, never a browser) the access token as a bearer. */
  private authed(c: { session?: string; bearer?: string }): boolean {
    return this.logins.check(c.session) !== undefined || tokenMatches(c.bearer, this.token);
  }

  /** A socket of a login is closed when that login ends (logout, expiry). */
  private track(socket: Socket): void {
    const hash = this.logins.check(presented(socket.request).session);
    if (!hash) return;
    const set = this.sockets.get(hash) ?? new Set<Socket>();
    this.sockets.set(hash, set.add(socket));
    socket.on('disconnect', () => {
      set.delete(socket);
      if (set.size === 0 && this.sockets.get(hash) === set) this.sockets.delete(hash);
    });
  }

  private closeSockets(hash: string): void {
    const set = this.sockets.get(hash);
    this.sockets.delete(hash);
    for (const s of set ?? []) s.disconnect(true);
  }

  private handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path !== '/' && !path.startsWith('/app/')) return false;
    const why = this.refusal(req);
    if (why) return (this.deny(res, 403, `${why}\n`), true);
    if (path === '/app/renew') return (this.renew(req, res), true);
    if (path === '/app/logout') return (this.logout(req, res), true);
    if (req.method !== 'GET' && req.method !== 'HEAD') return (res.writeHead(405, { allow: 'GET, HEAD' }).end(), true);
    if (path.startsWith(FRAME_PREFIX)) return (this.serveFrame(path.slice(FRAME_PREFIX.length), req, res), true);
    const login = url.searchParams.get('login');
    if (path === '/' && login !== null) return (this.logIn(login, req, res), true);
    const given = url.searchParams.get('token');
    if (path === '/' && given !== null) {
      if (!tokenMatches(given, this.token))
        return (
          this.deny(res, 401, 'this link is not from this core (or the core restarted since): run "mcpd open" for a fresh login link\n'),
          true
        );
      return (this.servePage(req, res, this.logins.open()), true);
    }
    // The page itself is static code, the same for everyone: what it may do needs a login's value.
    const asset = this.assets.get(path === '/' ? 'index.html' : path.slice('/app/'.length));
    if (!asset) return (this.deny(res, 404, `not found: ${path}\n`), true);
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type }).end(req.method === 'HEAD' ? undefined : asset.body);
    return true;
  }

  /** The page, carrying a new login's value for its script to keep (in its origin's sessionStorage). */
  private servePage(req: IncomingMessage, res: ServerResponse, session: string): void {
    const index = this.assets.get('index.html');
    const body = index ? pageWithLogin(index.body, session) : Buffer.from('');
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': index?.type ?? 'text/html' }).end(req.method === 'HEAD' ? undefined : body);
  }

  /**
   * An MCP App's page, prepared by an `app-frame` request of a logged-in page: served once, with the CSP
   * built from what its resource declared (a sandbox directive included), never with the dashboard's origin.
   */
  private serveFrame(id: string, req: IncomingMessage, res: ServerResponse): void {
    const frame = this.frames.take(id);
    if (!frame) return this.deny(res, 404, 'this app frame was used or has expired: run the tool again\n');
    res
      .writeHead(200, {
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'content-security-policy': frame.csp,
        'content-type': 'text/html; charset=utf-8',
      })
      .end(req.method === 'HEAD' ? undefined : frame.html);
  }

  /** A single-use login link (what `mcpd open` leads the browser to): the code is traded once for a login. */
  private logIn(code: string, req: IncomingMessage, res: ServerResponse): void {
    const why = this.codes.redeem(code);
    if (why) {
      this.o.log('warning', 'dashboard.login_refused', { reason: why });
      return this.deny(res, 401, `${why}: run "mcpd open" for a fresh login link\n`);
    }
    // The private page `mcpd open` wrote for this code has served its purpose.
    removeLoginPage(this.o.stateDir, code.split('.')[0] ?? '');
    this.servePage(req, res, this.logins.open());
  }

  /**
   * POST from a page whose core was replaced after a graceful stop: its login's old value in, a new one out
   * (once; the login keeps its end). A value live here needs no renewal (204).
   */
  private renew(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    if (!req.headers.origin) return this.deny(res, 403, 'renewal needs an Origin header (only the dashboard page renews)\n');
    const { session } = presented(req);
    if (this.logins.check(session)) return void res.writeHead(204, SECURITY_HEADERS).end();
    const fresh = this.logins.renew(session);
    if (!fresh) return this.deny(res, 401, 'nothing to renew: open the dashboard again with "mcpd open"\n');
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' }).end(JSON.stringify({ session: fresh }));
  }

  /** POST from the page: its login ends, and its sockets with it. */
  private logout(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    if (!req.headers.origin) return this.deny(res, 403, 'logout needs an Origin header (only the dashboard page logs out)\n');
    if (!this.logins.end(presented(req).session)) return this.deny(res, 401, 'no such login (it ended already)\n');
    res.writeHead(204, SECURITY_HEADERS).end();
  }

  private deny(res: ServerResponse, code: number, text: string): void {
    res.writeHead(code, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' }).end(text);
  }
}

/** Where the MCP App pages are served (app-frames.ts). */
const FRAME_PREFIX = '/app/frame/';

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Socket.IO's path (its default, which the dashboard page uses). */
function isSocketIoPath(req: IncomingMessage): boolean {
  return (req.url ?? '').startsWith('/socket.io/');
}
