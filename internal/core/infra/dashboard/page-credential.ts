import type { IncomingMessage } from 'node:http';

/**
 * How a request presents a dashboard credential, always explicitly (never a cookie): the page's login value
 * in the `x-mcpd-session` header (renew, logout) or, for its socket (a browser cannot set WebSocket headers),
 * the `session` query parameter; the access token only as `Authorization: Bearer` (tools that hold it).
 */
export function presented(req: IncomingMessage): { session?: string; bearer?: string } {
  const header = req.headers['x-mcpd-session'];
  const query = new URL(req.url ?? '/', 'http://x').searchParams.get('session');
  const session = (Array.isArray(header) ? header[0] : header) ?? query ?? undefined;
  const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  return { ...(session ? { session } : {}), ...(auth ? { bearer: auth } : {}) };
}

/** The page's HTML with a login's value for its script (a meta tag: the CSP allows no inline script). */
export function pageWithLogin(index: Buffer, session: string): Buffer {
  // The value is base64url: nothing in it needs escaping in an attribute.
  return Buffer.from(index.toString('utf8').replace('<head>', `<head>\n    <meta name="mcpd-session" content="${session}" />`));
}
