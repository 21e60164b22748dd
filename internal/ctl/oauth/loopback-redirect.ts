import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface RedirectListener {
  /** http://127.0.0.1:PORT/callback */
  redirectUrl: string;
  /** The authorization code, once the browser comes back with our state. */
  code: Promise<string>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) => `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>\n`;

/**
 * The loopback redirect endpoint of one sign-in (RFC 8252 §7.3). Only requests that carry this
 * sign-in's random `state` count (that is what authenticates the browser coming back); the Host
 * header must name the loopback address we listen on, so a page on another origin cannot reach it
 * through DNS rebinding. It accepts one answer and then stops listening.
 */
export async function listenForRedirect(opts: { port?: number; state: string }): Promise<RedirectListener> {
  let settle: { resolve: (code: string) => void; reject: (e: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Marks the promise handled (no unhandled rejection when nobody waits yet); the awaiting caller still gets the rejection.
  code.catch(() => {});
  const server = createServer((req, res) => answer(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  function answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const send = (status: number, title: string, text: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE(title, text));
    };
    if (!hosts.has(req.headers.host ?? '')) return send(421, 'Wrong host', 'This sign-in listener answers only on its loopback address.');
    if (req.method !== 'GET' || url.pathname !== '/callback') return send(404, 'Not found', 'Nothing here.');
    if (!sameState(url.searchParams.get('state') ?? '', opts.state)) {
      return send(400, 'Unknown sign-in', 'This answer does not belong to the sign-in mcpdctl is waiting for.');
    }
    const error = url.searchParams.get('error');
    if (error) {
      const why = url.searchParams.get('error_description');
      send(400, 'Sign-in refused', 'The authorization server refused the sign-in; see the terminal.');
      return settle?.reject(new Error(`the authorization server refused: ${error}${why ? ` (${why})` : ''}`));
    }
    const got = url.searchParams.get('code');
    if (!got) return send(400, 'No code', 'The answer carries no authorization code.');
    send(200, 'Signed in', 'Signed in. You can close this window and return to the terminal.');
    settle?.resolve(got);
  }

  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sameState(got: string, want: string): boolean {
  const a = Buffer.from(got);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}
