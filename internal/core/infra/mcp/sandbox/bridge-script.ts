/**
 * Runs inside a sandbox whose servers may reach some hosts (`node -e BRIDGE_SCRIPT cmd args…`): the
 * network namespace has only loopback, so this bridge listens there and carries every connection to
 * mcpd's proxy on the unix socket bound at MCPD_SANDBOX_SOCKET. It serves the HTTP(S) proxy port that
 * the server's HTTP_PROXY names, and each allowed loopback `host:port` on the same port inside (so a
 * server that connects to 127.0.0.1:PORT directly works unchanged), then runs the server with
 * inherited stdio and exits as it exits. CommonJS because `node -e` is.
 */
export const BRIDGE_SCRIPT = String.raw`
const net = require('node:net');
const { spawn } = require('node:child_process');
const sock = process.env.MCPD_SANDBOX_SOCKET;
const proxyPort = Number(process.env.MCPD_SANDBOX_PROXY_PORT);
const direct = (process.env.MCPD_SANDBOX_DIRECT || '').split(',').filter(Boolean).map(Number);
const env = { ...process.env };
for (const k of ['MCPD_SANDBOX_SOCKET', 'MCPD_SANDBOX_PROXY_PORT', 'MCPD_SANDBOX_DIRECT']) delete env[k];
const pipeTo = (client, preface) => {
  const up = net.createConnection(sock);
  const drop = () => { client.destroy(); up.destroy(); };
  up.on('error', drop);
  client.on('error', drop);
  if (!preface) { up.pipe(client); client.pipe(up); return; }
  client.pause();
  up.write(preface);
  let head = Buffer.alloc(0);
  const onHead = (d) => {
    head = Buffer.concat([head, d]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    up.off('data', onHead);
    if (!head.subarray(0, 12).toString().includes(' 200')) return drop();
    if (head.length > end + 4) client.write(head.subarray(end + 4));
    up.pipe(client); client.pipe(up); client.resume();
  };
  up.on('data', onHead);
};
const listen = (port, onConn) => new Promise((ok, fail) => {
  const s = net.createServer(onConn);
  s.once('error', fail);
  s.listen(port, '127.0.0.1', ok);
});
Promise.all([
  listen(proxyPort, (c) => pipeTo(c)),
  ...direct.map((p) => listen(p, (c) => pipeTo(c, 'CONNECT 127.0.0.1:' + p + ' HTTP/1.1\r\nHost: 127.0.0.1:' + p + '\r\n\r\n'))),
]).then(() => {
  const [cmd, ...args] = process.argv.slice(1);
  const child = spawn(cmd, args, { stdio: 'inherit', env });
  child.on('error', (e) => { process.stderr.write('mcpd sandbox: cannot start ' + cmd + ': ' + e.message + '\n'); process.exit(127); });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 : code));
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
}, (e) => { process.stderr.write('mcpd sandbox: the network bridge could not listen: ' + e.message + '\n'); process.exit(126); });
`;
