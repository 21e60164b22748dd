import { McpdError } from '../shared/errors.js';
import { MuxConnection } from './mux-session-client.js';
import { SessionClient } from '../contract/session/session-client.js';
import type { SessionHello } from '../contract/gen/mcpd/control/v1/session.js';

/**
 * One MCPD-SESSION/2 connection to the core shared by every Session of this gateway process (the HTTP
 * gateway's MCP sessions): N sessions cost the core one fd, not N. Each Session is its own
 * channel with its own hello, so the core sees N caller sessions, each released on its own. When the
 * core goes away every channel fails; each session's CoreLink reconnects, and the first to do so
 * opens the next connection for all of them.
 */
export class SharedCoreConnection {
  private conn?: MuxConnection;
  private connecting?: Promise<MuxConnection>;
  private stopped = false;

  constructor(private readonly socketPath: string) {}

  /** A new Session on the shared connection (connecting first when there is none). */
  async openSession(hello: SessionHello, timeoutMs = 5000): Promise<SessionClient> {
    const conn = await this.connection();
    const mapError = (e: Error) => new McpdError('UNAVAILABLE', `mcpd core at ${this.socketPath}: ${e.message}`);
    return SessionClient.handshake(conn.open(), hello, timeoutMs, mapError);
  }

  close(): void {
    this.stopped = true;
    this.conn?.close();
  }

  private connection(): Promise<MuxConnection> {
    if (this.stopped) return Promise.reject(new McpdError('UNAVAILABLE', 'gateway is shutting down'));
    if (this.conn && !this.conn.isClosed) return Promise.resolve(this.conn);
    this.connecting ??= MuxConnection.connect(this.socketPath)
      .then(
        (c) => (this.conn = c),
        (e: NodeJS.ErrnoException) => {
          throw new McpdError('UNAVAILABLE', `mcpd core at ${this.socketPath}: ${e.code ?? e.message}`);
        },
      )
      .finally(() => (this.connecting = undefined));
    return this.connecting;
  }
}
