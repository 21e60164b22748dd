import { parseListenAddress } from '../shared/http-address.js';
import { HttpGatewayConfigError, startHttpGateway, type SessionGateway } from './http-server.js';
import { httpLimits } from './http-limits.js';
import { resolveHttpToken, type HttpToken, type TokenSources } from './http-token.js';

export interface HttpMainOptions {
  /** The --http value. */
  address: string;
  /** --token (a value or "auto"), --token-file and env MCPD_HTTP_TOKEN. */
  tokens: TokenSources;
  newSession: () => SessionGateway;
  /** --max-sessions. */
  maxSessions?: string;
  /** The caller and version 2026-07-28 requests are served as. */
  caller: string;
  version: string;
  log: (msg: string) => void;
}

/**
 * `mcpdmcp <caller> --http ADDR`: serves until SIGINT/SIGTERM, printing the bound URL on stderr as
 * `listening on <url>` (tests and scripts read it to learn a port-0 port). Exits 2 on bad settings.
 */
export async function runHttpGateway(o: HttpMainOptions): Promise<void> {
  let gw;
  let token: HttpToken | undefined;
  try {
    const { host, port } = parseListenAddress(o.address);
    const t = resolveHttpToken(o.tokens);
    t.warnings.forEach((w) => o.log(`warning: ${w}`));
    token = t;
    const limits = httpLimits(process.env, { maxSessions: o.maxSessions });
    gw = await startHttpGateway({
      host,
      port,
      token: t.token,
      newSession: o.newSession,
      log: o.log,
      limits,
      caller: o.caller,
      version: o.version,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const known =
      e instanceof HttpGatewayConfigError ||
      err.message.startsWith('--') ||
      err.message.startsWith('MCPD_HTTP_') ||
      err.code === 'EADDRINUSE' ||
      err.code === 'EADDRNOTAVAIL' ||
      err.code === 'EACCES';
    o.log(`cannot serve HTTP: ${err.message}`);
    process.exit(known ? 2 : 1);
  }
  o.log(`listening on ${gw.url}`);
  if (token?.generated) {
    o.log(`client settings: ${JSON.stringify({ url: gw.url, headers: { Authorization: `Bearer ${token.token}` } })}`);
  } else if (!token?.token) {
    o.log(
      `warning: no token: any local user can call this caller's tools at ${gw.url}; pass --token auto (or --token-file FILE) to require one`,
    );
  }
  const stop = (signal: string) => {
    o.log(`${signal}: closing ${gw.sessionCount()} session(s)`);
    // The process exits when close settles, either way; a failed close has nothing left to clean up.
    void gw.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
