/**
 * The page's login value (never the core's token): the core hands it once in a meta tag of the page it
 * serves for a login link; the page keeps it in its origin's sessionStorage (no other port or site can read
 * it, and no cookie carries it anywhere) and presents it explicitly to the socket, /app/renew and /app/logout.
 */
const KEY = 'mcpd-session';

export function takeLogin(): string | null {
  const meta = document.querySelector('meta[name="mcpd-session"]');
  const v = meta?.getAttribute('content');
  if (meta && v) {
    sessionStorage.setItem(KEY, v);
    meta.remove();
    // The login code (or token) leaves the address bar and the history entry.
    history.replaceState(null, '', `/${location.hash}`);
  }
  return sessionStorage.getItem(KEY);
}

export function keepLogin(v: string): void {
  sessionStorage.setItem(KEY, v);
}

export function dropLogin(): void {
  sessionStorage.removeItem(KEY);
}
