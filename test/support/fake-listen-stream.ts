import type { ListenEnd, ListenStream } from '../../internal/core/infra/mcp/kept-listen.js';

/**
 * A listen stream for the session's listen unit tests, standing in for SDK v2's McpSubscription: the test
 * ends it as the server would (`end('remote')` …), the code under test by `close()`; `closedBy` says which came first.
 */
export class FakeListenStream implements ListenStream {
  closedBy?: ListenEnd;
  private resolve!: (why: ListenEnd) => void;
  readonly closed = new Promise<ListenEnd>((r) => (this.resolve = r));

  end(why: ListenEnd): void {
    this.closedBy ??= why;
    this.resolve(why);
  }

  close(): Promise<void> {
    this.end('local');
    return Promise.resolve();
  }
}
