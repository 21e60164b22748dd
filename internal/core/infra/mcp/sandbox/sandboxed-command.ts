import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { McpdError } from '../../../../shared/errors.js';
import { parseHostRule, type HostRule } from '../../../../contract/model/sandbox.js';
import { isLoopbackName } from './loopback.js';
import { BRIDGE_SCRIPT } from './bridge-script.js';
import { SANDBOX_SOCKET, bwrapArgs, type BwrapPlan } from './bwrap-args.js';
import { SandboxProxy, type ProxyDenial } from './sandbox-proxy.js';

/** What bwrap's plan needs of the server, plus who it is and where its denied connections are reported. */
export interface SandboxRequest extends Pick<BwrapPlan, 'sandbox' | 'command' | 'args' | 'env' | 'cwd' | 'protectedPaths'> {
  serverName: string;
  onDenied: (d: ProxyDenial) => void;
}

/** The command to spawn instead of the server's, and what to release when its process is gone. */
export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  release: () => void;
}

const BWRAP = 'bwrap';
let bwrapChecked: string | undefined;

/** Fails with what to install when bubblewrap is missing (checked once per process). */
function requireBwrap(serverName: string): void {
  if (bwrapChecked === 'ok') return;
  try {
    execFileSync(BWRAP, ['--version'], { stdio: 'ignore' });
    bwrapChecked = 'ok';
  } catch {
    throw new McpdError(
      'FAILED_PRECONDITION',
      `cannot start server ${serverName}: its sandbox needs bubblewrap ("bwrap" on PATH); install it (Debian/Ubuntu: apt install bubblewrap) or set sandbox: false`,
    );
  }
}

/** A port for the HTTP proxy inside that no allowed loopback port uses. */
function proxyPort(direct: number[]): number {
  let p = 3128;
  while (direct.includes(p)) p++;
  return p;
}

/**
 * Wraps a stdio server's command in bubblewrap. With hosts to reach, a proxy on a private unix socket
 * (one per instance, so a denial names its server) is started first and the node bridge runs inside.
 */
export async function sandboxedCommand(req: SandboxRequest): Promise<SandboxedCommand> {
  requireBwrap(req.serverName);
  const base = {
    sandbox: req.sandbox,
    command: req.command,
    args: req.args,
    env: req.env,
    cwd: req.cwd,
    protectedPaths: req.protectedPaths,
  };
  if (req.sandbox.allow.length === 0) {
    const args = [...bwrapArgs({ ...base, execPath: process.execPath }), '--', req.command, ...req.args];
    return { command: BWRAP, args, env: req.env, release: () => {} };
  }
  const rules = req.sandbox.allow.map(parseHostRule).filter((r): r is HostRule => !('error' in r));
  const direct = [...new Set(rules.filter((r) => r.port !== undefined && isLoopbackName(r.host)).map((r) => r.port as number))];
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-sandbox-'));
  const socket = join(dir, 'proxy.sock');
  const proxy = new SandboxProxy(rules, req.onDenied);
  await proxy.listen(socket);
  const port = proxyPort(direct);
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...req.env,
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    NO_PROXY: 'localhost,127.0.0.1,::1',
    no_proxy: 'localhost,127.0.0.1,::1',
    // Node ≥ 24 sends fetch and http through HTTP(S)_PROXY only when asked.
    NODE_USE_ENV_PROXY: '1',
    MCPD_SANDBOX_SOCKET: SANDBOX_SOCKET,
    MCPD_SANDBOX_PROXY_PORT: String(port),
    MCPD_SANDBOX_DIRECT: direct.join(','),
  };
  const plan = { ...base, env, proxySocket: socket, execPath: process.execPath };
  const args = [...bwrapArgs(plan), '--', process.execPath, '-e', BRIDGE_SCRIPT, req.command, ...req.args];
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    proxy.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { command: BWRAP, args, env, release };
}
