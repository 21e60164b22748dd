import type { ServerResponse } from 'node:http';

/**
 * An SSE stream the client stopped reading would buffer every event in this process: past `max` unread
 * bytes the stream is closed instead; the client resumes it with Last-Event-ID (bounded event store).
 *
 * The MCP SDK hands its SSE events to a web ReadableStream whose queue has no limit, and @hono/node-server
 * pipes that stream into `res` honouring write()'s backpressure: once `res` says "wait for drain", the
 * backlog piles up in the ReadableStream, where no one can see or bound it. So every write here reports
 * success: the pipe keeps draining the ReadableStream into `res`, the backlog stays in `res.writableLength`
 * (its own buffer plus the socket's), and this bound is the one that holds it.
 */
export function boundUnread(res: ServerResponse, max: number, onOverflow?: (unread: number) => void): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    if (res.destroyed) return false;
    if (res.writableLength > max) {
      onOverflow?.(res.writableLength);
      res.destroy();
      return false;
    }
    write(...args);
    return true;
  }) as typeof res.write;
}
