import { isIP } from 'node:net';

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Parses `--http` values: `HOST:PORT`, `[IPV6]:PORT`, or a bare `PORT` (loopback). Port 0 picks a free
 * port. Throws with what was wrong and an example.
 */
export function parseListenAddress(text: string): ListenAddress {
  const hint = `expected HOST:PORT such as 127.0.0.1:8765 (port 0 = any free port), [::1]:8765, or just a port`;
  const bare = /^\d+$/.test(text);
  const [, host, portText] = bare ? ['', '127.0.0.1', text] : (/^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:[\]]+):(\d+)$/.exec(text) ?? []);
  if (host === undefined) throw new Error(`--http "${text}": ${hint}`);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--http "${text}": port must be 0–65535`);
  if (text.startsWith('[') && isIP(host) !== 6) throw new Error(`--http "${text}": "${host}" in brackets is not an IPv6 address`);
  return { host, port };
}
