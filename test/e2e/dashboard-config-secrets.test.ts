import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { dashboardToken } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { echoServer, profile } from '../support/profiles.js';

const ENV_SECRET = 'sk-live-0123456789abcdef';
const HEADER_SECRET = 'hdr-secret-9876543210';
const URL_SECRET = 'q-secret-55555';

/** The dashboard's Config page shows the store files: literal secrets in them are masked like everywhere else. */
describe("the dashboard's config event", () => {
  let world: TestWorld;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml':
        profile(echoServer('echo', {}, { API_KEY: ENV_SECRET })) +
        `  - name: remote\n    url: "http://127.0.0.1:9/mcp?api_key=${URL_SECRET}"\n    headers:\n      Authorization: "Bearer ${HEADER_SECRET}"\n`,
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('masks literal env, header and URL secrets of the store files', async () => {
    const token = dashboardToken(world);
    const s = ioClient(`http://127.0.0.1:${port}/app`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { authorization: `Bearer ${token}` },
    });
    try {
      await new Promise<void>((resolve, reject) => (s.once('connect', resolve), s.once('connect_error', reject)));
      const r = (await s.timeout(30_000).emitWithAck('config', {})) as { ok: boolean; value: { path: string; text: string }[] };
      expect(r.ok).toBe(true);
      const text = r.value.map((f) => f.text).join('\n');
      expect(text).toContain('name: remote'); // the file is shown
      expect(text).toContain('API_KEY');
      for (const secret of [ENV_SECRET, HEADER_SECRET, URL_SECRET]) expect(text).not.toContain(secret);
    } finally {
      s.close();
    }
  });
});
