import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel's ephemeral range: every `listen(0)` and every outgoing connection on the machine takes its
 * port from here.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // Not Linux: the IANA dynamic range.
  }
  return [49152, 65535];
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(undefined));
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as { port: number }).port;
      s.close(() => resolve(got));
    });
  });
}

/**
 * A loopback port free right now, for a listener that must come back on the same port after a restart
 * (a dashboard page reconnecting to its origin). Chosen below the ephemeral range: while the listener is
 * down, any process on the machine that listens on port 0 or connects somewhere could otherwise be given
 * this very port, and the restarted listener would find it taken — a test failing only because other
 * programs run on the machine.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const from = 10_000;
  if (low - from > 1000) {
    for (let i = 0; i < 50; i++) {
      const port = await tryListen(from + Math.floor(Math.random() * (low - from)));
      if (port !== undefined) return port;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}
