import { parseListenAddress } from './http-address.js';
import { HttpGatewayConfigError, startHttpGateway, type SessionGateway } from './http-server.js';

export interface HttpMainOptions {
  /** The --http value. */
  address: string;
  /** --token, else env MCPD_HTTP_TOKEN. */
  token?: string;
  newSession: () => SessionGateway;
  log: (msg: string) => void;
}

/**
 * `mcpdmcp <caller> --http ADDR`: serves until SIGINT/SIGTERM, printing the bound URL on stderr as
 * `listening on <url>` (tests and scripts read it to learn a port-0 port). Exits 2 on bad settings.
 */
export async function runHttpGateway(o: HttpMainOptions): Promise<void> {
  let gw;
  try {
    const { host, port } = parseListenAddress(o.address);
    gw = await startHttpGateway({ host, port, token: o.token || undefined, newSession: o.newSession, log: o.log });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const known =
      e instanceof HttpGatewayConfigError ||
      err.message.startsWith('--http') ||
      err.code === 'EADDRINUSE' ||
      err.code === 'EADDRNOTAVAIL' ||
      err.code === 'EACCES';
    o.log(`cannot serve HTTP: ${err.message}`);
    process.exit(known ? 2 : 1);
  }
  o.log(`listening on ${gw.url}`);
  const stop = (signal: string) => {
    o.log(`${signal}: closing ${gw.sessionCount()} session(s)`);
    void gw.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
