#!/usr/bin/env node
// The hop benchmark's floor: the same process chain as client → mcpdmcp → core → server, with each hop
// forwarding bytes and doing nothing else. `core SOCKET CMD...` spawns the server and relays between it
// and one connection on SOCKET; `gw SOCKET` relays between its stdio and SOCKET. What the real chain adds
// on top of this floor is the gateway's and the core's own work.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const [role, socket, ...cmd] = process.argv.slice(2);
if (role === 'core') {
  rmSync(socket, { force: true });
  const server = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] });
  let peer;
  server.stdout.on('data', (d) => peer?.write(d));
  const listener = createServer((c) => {
    peer = c;
    c.on('data', (d) => server.stdin.write(d));
    c.on('close', () => {
      server.kill();
      listener.close();
    });
  });
  listener.listen(socket, () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => {
    server.kill();
    process.exit(0);
  });
} else if (role === 'gw') {
  const c = connect(socket);
  c.on('data', (d) => process.stdout.write(d));
  c.on('close', () => process.exit(0));
  process.stdin.on('data', (d) => c.write(d));
  process.stdin.on('end', () => c.end());
} else {
  process.stderr.write('usage: forwarder.mjs core SOCKET CMD... | gw SOCKET\n');
  process.exit(2);
}
