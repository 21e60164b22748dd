import type { CallerSession, ControlApi } from '../../../contract/control/control.js';
import { encodeJson } from '../../../contract/session/json-bytes.js';
import type { SessionOutput } from './session-output.js';
import { ClientToolListWatch } from '../../../contract/session/tool-list-watch.js';

/** Tells a session's gateway when its caller's tools, resources or prompts changed. */
export class ListChangeForwarder {
  private readonly watches: AsyncIterableIterator<{ etag: string }>[] = [];
  private closed = false;

  constructor(private readonly output: SessionOutput) {}

  start(api: ControlApi, session: CallerSession): void {
    // The client's tool list also holds mcpd_finder when the caller's resources give the Finder content.
    const { caller, clientName: client } = session;
    const watches = [
      [
        new ClientToolListWatch(api.watchTools(caller, undefined, client), api.resources.watch(caller, undefined, client)),
        'notifications/tools/list_changed',
      ],
      [api.resources.watch(caller, undefined, client), 'notifications/resources/list_changed'],
      [api.prompts.watch(caller, undefined, client), 'notifications/prompts/list_changed'],
    ] as const;
    for (const [watch, method] of watches) {
      // Runs for the session's life; a LatestWins watch ends rather than rejects and send() only queues a frame.
      void this.forward(watch, method);
    }
  }

  close(): void {
    this.closed = true;
    // A watch's return() only marks it done and settles at once; the session's end need not wait.
    for (const w of this.watches) void w.return?.();
  }

  /** The etag lets the gateway skip stale nudges. */
  private async forward(watch: AsyncIterableIterator<{ etag: string }>, method: string): Promise<void> {
    this.watches.push(watch);
    // Opened after the session ended: end it at once (return() settles immediately), so the loop below does not start.
    if (this.closed) void watch.return?.();
    let last: string | undefined;
    for await (const snap of watch) {
      if (last !== undefined && snap.etag !== last)
        this.output.send({ notification: { method, paramsJson: encodeJson({ _meta: { 'mcpd/etag': snap.etag } }) } });
      last = snap.etag;
    }
  }
}
