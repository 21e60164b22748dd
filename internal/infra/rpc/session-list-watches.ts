import type { CallerSession, ControlApi } from '../../domain/control.js';
import { encodeJson } from './json-bytes.js';
import type { SessionOutput } from './session-output.js';

/** Tells a session's gateway when its caller's tools, resources or prompts changed. */
export class ListChangeForwarder {
  private readonly watches: AsyncIterableIterator<{ etag: string }>[] = [];
  private closed = false;

  constructor(private readonly output: SessionOutput) {}

  start(api: ControlApi, session: CallerSession): void {
    void this.forward(api.watchTools(session.caller), 'notifications/tools/list_changed');
    void this.forward(api.resources.watch(session.caller), 'notifications/resources/list_changed');
    void this.forward(api.prompts.watch(session.caller), 'notifications/prompts/list_changed');
  }

  close(): void {
    this.closed = true;
    for (const w of this.watches) void w.return?.();
  }

  /** The etag lets the gateway skip stale nudges. */
  private async forward(watch: AsyncIterableIterator<{ etag: string }>, method: string): Promise<void> {
    this.watches.push(watch);
    if (this.closed) void watch.return?.();
    let last: string | undefined;
    for await (const snap of watch) {
      if (last !== undefined && snap.etag !== last)
        this.output.send({ notification: { method, paramsJson: encodeJson({ _meta: { 'mcpd/etag': snap.etag } }) } });
      last = snap.etag;
    }
  }
}
