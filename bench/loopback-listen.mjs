// Preloaded (`node --import`) into a peer the benchmarks start: a server that listens on a port
// without naming a host (mcp-hub 4.2.1 does `listen(port, cb)`, i.e. every interface) listens on
// 127.0.0.1 instead, so a benchmark never exposes a listener beyond this machine.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] === 'function')) args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
