import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listenForRedirect } from './loopback-redirect.js';

/** A raw GET so the Host header can be anything (fetch would set it from the URL). */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject).end();
  });
}

describe('loopback redirect listener', () => {
  it('takes the code only with this sign-in state, on its own loopback Host', async () => {
    const l = await listenForRedirect({ state: 'the-state' });
    try {
      const port = Number(new URL(l.redirectUrl).port);
      expect(l.redirectUrl).toBe(`http://127.0.0.1:${port}/callback`);
      expect((await get(port, '/callback?code=c1&state=the-state', 'evil.example:80')).status).toBe(421);
      expect((await get(port, '/callback?code=c1&state=other', `127.0.0.1:${port}`)).status).toBe(400);
      expect((await get(port, '/elsewhere?code=c1&state=the-state', `127.0.0.1:${port}`)).status).toBe(404);
      const ok = await get(port, '/callback?code=c1&state=the-state', `localhost:${port}`);
      expect(ok.status).toBe(200);
      await expect(l.code).resolves.toBe('c1');
    } finally {
      await l.close();
    }
  });

  it("passes the authorization server's refusal on", async () => {
    const l = await listenForRedirect({ state: 's' });
    try {
      const port = Number(new URL(l.redirectUrl).port);
      await get(port, '/callback?error=access_denied&error_description=user+said+no&state=s', `127.0.0.1:${port}`);
      await expect(l.code).rejects.toThrow('the authorization server refused: access_denied (user said no)');
    } finally {
      await l.close();
    }
  });
});
