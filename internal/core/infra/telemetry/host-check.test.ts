import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetricsServer, type MetricsHttpServer } from './http-server.js';

/** GET with exactly these headers (fetch would not let a test forge Host). */
function get(url: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers, setHost: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/metrics and /healthz refuse foreign Host and Origin headers', () => {
  let server: MetricsHttpServer;
  beforeAll(async () => {
    server = await startMetricsServer({
      address: '127.0.0.1:0',
      metrics: async () => ({ contentType: 'text/plain', body: 'x 1\n' }),
      health: () => ({ code: 200, body: { status: 'ok' } }),
    });
  });
  afterAll(async () => server.close());

  it('answers its own loopback names and refuses a rebinding page', async () => {
    const host = new URL(server.url).host;
    for (const path of ['/metrics', '/healthz']) {
      expect(await get(`${server.url}${path}`, { host })).toBe(200);
      expect(await get(`${server.url}${path}`, { host: `localhost:${new URL(server.url).port}` })).toBe(200);
      expect(await get(`${server.url}${path}`, { host: 'evil.example:80' })).toBe(403);
      expect(await get(`${server.url}${path}`, { host, origin: 'http://evil.example' })).toBe(403);
      // Another port on this machine is another web server: its pages must not read us.
      const other = Number(new URL(server.url).port) + 1;
      expect(await get(`${server.url}${path}`, { host: `127.0.0.1:${other}` })).toBe(403);
      expect(await get(`${server.url}${path}`, { host: 'localhost' })).toBe(403);
      expect(await get(`${server.url}${path}`, { host, origin: `http://localhost:${other}` })).toBe(403);
      expect(await get(`${server.url}${path}`, { host, origin: server.url })).toBe(200);
    }
  });
});
