import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { hostCheck } from './host-check.js';

interface HealthReport {
  /** 200 while serving, 503 while shutting down. */
  code: number;
  body: Record<string, unknown>;
}

export interface MetricsHttpOptions {
  /** host:port ("[::1]:9464" for IPv6); port 0 picks a free port. */
  address: string;
  /** Bind a non-loopback address anyway (nothing here is authenticated). */
  allowRemote?: boolean;
  metrics(): Promise<{ contentType: string; body: string }>;
  health(): HealthReport;
  /** Another handler on the same listener (the dashboard): it sees each request first; true = answered. */
  mount?: (server: Server) => { handle(req: IncomingMessage, res: ServerResponse): boolean; close(): Promise<void> };
}

export interface MetricsHttpServer {
  /** e.g. http://127.0.0.1:9464 (the bound port, also when 0 was asked for). */
  url: string;
  close(): Promise<void>;
}

export interface HostPort {
  host: string;
  port: number;
}

/** Parses "host:port" / "[v6]:port"; the error says what a good value looks like. */
export function parseAddress(address: string): HostPort {
  const [, host, portText] = /^\[([^\]]+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address) ?? [];
  const port = Number(portText);
  if (host === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`runtime.yaml metricsAddress "${address}" is not host:port (e.g. 127.0.0.1:9464, [::1]:9464; empty turns metrics off)`);
  }
  return { host, port };
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** Serves /metrics and /healthz. Everything else is 404; only GET/HEAD. */
export async function startMetricsServer(o: MetricsHttpOptions): Promise<MetricsHttpServer> {
  const { host, port } = parseAddress(o.address);
  if (!isLoopback(host) && !o.allowRemote) {
    throw new Error(
      `runtime.yaml metricsAddress "${o.address}" is not a loopback address; /metrics and /healthz have no authentication, ` +
        'so mcpd binds them to 127.0.0.1/::1/localhost only. Use a loopback address, or set MCPD_METRICS_ALLOW_REMOTE=1 to expose them anyway',
    );
  }
  let mounted: ReturnType<NonNullable<MetricsHttpOptions['mount']>> | undefined;
  // Every route on this listener (the dashboard's included) is Host/Origin-checked first.
  const refused = hostCheck(host, () => (server.address() as AddressInfo | null)?.port ?? port);
  const server = createServer((req, res) => {
    const why = refused(req);
    if (why) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`forbidden: ${why}\n`);
      return;
    }
    if (mounted?.handle(req, res)) return;
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      const h = o.health();
      res.writeHead(h.code, { 'content-type': 'application/json' }).end(JSON.stringify(h.body));
    } else if (path === '/metrics') {
      o.metrics().then(
        (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
        (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`collecting metrics failed: ${e.message}\n`),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: mcpd serves /metrics and /healthz\n');
    }
  });
  mounted = o.mount?.(server);
  await listen(server, host, port);
  const a = server.address() as AddressInfo;
  const shownHost = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${shownHost}:${a.port}`,
    close: async () => {
      await mounted?.close();
      await new Promise<void>((res) => {
        server.close(() => res());
        server.closeAllConnections();
      });
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((res, rej) => {
    const onError = (e: NodeJS.ErrnoException) => {
      rej(
        new Error(
          `cannot serve metrics on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use (another core?); pick another metricsAddress in runtime.yaml' : e.message}`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      res();
    });
  });
}
