import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { httpSpec } from '../../../test/support/server-specs.js';
import { probeChallenge } from './challenge-probe.js';

/** A loopback port nothing listens on: bound, noted, closed. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('mcpdctl auth against a server that is down', () => {
  it('names the server, the URL (query values masked) and why, not "fetch failed"', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/mcp?token=abc12345`;
    await expect(probeChallenge(httpSpec('remote', url))).rejects.toThrow(
      `cannot reach server "remote" at http://127.0.0.1:${port}/mcp?token=***: ECONNREFUSED`,
    );
  });
});
