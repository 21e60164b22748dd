import type { ServerResponse } from 'node:http';

/**
 * An SSE stream the client stopped reading would buffer every event in this process: past `max` unread
 * bytes the stream is closed instead; the client resumes it with Last-Event-ID (bounded event store).
 */
export function boundUnread(res: ServerResponse, max: number): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    if (res.writableLength > max) {
      res.destroy();
      return false;
    }
    return write(...args);
  }) as typeof res.write;
}
