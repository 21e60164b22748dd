import { createServer, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { boundUnread } from './bound-unread.js';
import { waitFor } from '../../test/support/procs.js';

describe('an SSE stream its client stopped reading', () => {
  it('is closed once the unread bytes pass the bound, instead of buffering without end', async () => {
    let response!: ServerResponse;
    let written = 0;
    const done = new Promise<void>((resolve) => {
      const server = createServer((_req, res) => {
        response = res;
        boundUnread(res, 256 * 1024);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const event = `data: ${'x'.repeat(1000)}\n\n`;
        // Write until the bound closes the stream: the kernel buffers fill, then writableLength grows.
        const pump = () => {
          while (!res.destroyed) {
            res.write(event);
            written += event.length;
            if (res.writableLength > 64 * 1024) return void setImmediate(pump);
          }
          server.close();
          resolve();
        };
        pump();
      });
      server.listen(0, '127.0.0.1', () => {
        const port = (server.address() as AddressInfo).port;
        const sock = connect(port, '127.0.0.1');
        sock.pause(); // never reads
        sock.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        void done.then(() => sock.destroy());
      });
    });
    await done;
    expect(response.destroyed).toBe(true);
    // Kernel socket buffers plus the bound; without the bound this loop would never end.
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  // The MCP SDK enqueues SSE events into a web ReadableStream without limit and @hono/node-server pipes it
  // into the response waiting for 'drain': the backlog must still reach the response, where it is bounded.
  it('is closed when a pipe that honours backpressure feeds it from an unbounded web stream', async () => {
    let overflow = 0;
    let response!: ServerResponse;
    const server = createServer((_req, res) => {
      response = res;
      boundUnread(res, 256 * 1024, (unread) => (overflow = unread));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = new TextEncoder().encode(`data: ${'x'.repeat(1000)}\n\n`);
      // Like the SDK: enqueue regardless of desiredSize (64 MB, far more than socket buffers hold).
      const source = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 64 * 1024; i++) controller.enqueue(event);
        },
      });
      Readable.fromWeb(source as import('node:stream/web').ReadableStream<Uint8Array>).pipe(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => {});
    sock.pause(); // never reads
    sock.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    try {
      await waitFor('the bound to close the piped stream', () => overflow > 0 && response.destroyed);
      expect(overflow).toBeGreaterThan(256 * 1024);
    } finally {
      sock.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
