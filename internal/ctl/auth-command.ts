import { spawn } from 'node:child_process';
import { McpdError } from '../shared/errors.js';
import { specFingerprint } from '../contract/model/fingerprint.js';
import { profileFor, type ProfileStore } from '../contract/model/profile.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { formatIssue } from '../shared/errors.js';
import { stateDirFor } from '../launch/state-dir.js';
import { assertSocketOwner } from '../contract/session/socket-path.js';
import { userStoreDir } from '../launch/store-location.js';
import { str, type CtlCommand, type Out } from './ctl-command.js';
import { must } from '../shared/must.js';

interface AuthFlags {
  caller?: string;
  /** Loopback port for the redirect (pre-registered clients need the registered one). */
  port?: string;
  /** Seconds to wait for the browser; default 300. */
  wait?: string;
  /** false: print the URL only (headless machines, tests). */
  open: boolean;
  /** Store of the running core, if any, else this one. */
  configDir: string;
  socket: string;
}

/** `mcpdctl auth <server> [--caller C] [--port N] [--wait S] [--no-open]`. */
export const authCmd: CtlCommand = {
  name: 'auth',
  args: '<server>',
  summary: 'sign in to an OAuth-protected HTTP server (prints and opens the URL; docs/auth.md)',
  details:
    'Uses the store of the running core (else --config, MCPD_CONFIG or the user store; never the current\n' +
    "directory's). The browser comes back to a loopback listener;\n" +
    'the tokens are kept in the state directory for the core, which refreshes them.',
  // It needs no core: it reads the store itself, and asks a running core only where that store is.
  offline: true,
  flags: {
    caller: { type: 'string', value: 'NAME', help: "the server of this caller's profile (when several profiles name it)" },
    port: { type: 'string', value: 'N', help: 'loopback port of the redirect (a pre-registered client needs its registered one)' },
    wait: { type: 'string', value: 'S', help: 'seconds to wait for the browser (default 300)' },
    'no-open': { type: 'boolean', help: 'print the URL only (no browser here)' },
  },
  run: ({ args, flags, socket, out }) =>
    authCommand(
      must(args[0], '<server>'),
      {
        caller: str(flags.caller),
        port: str(flags.port),
        wait: str(flags.wait),
        open: flags['no-open'] !== true,
        configDir: authConfigDir(str(flags.config)),
        socket,
      },
      out,
    ),
};

/**
 * --config, MCPD_CONFIG, else the user's own store — never the current directory's: a cloned repository
 * with a `profiles/` folder would otherwise have its `command` inputs run by a sign-in.
 */
export function authConfigDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.MCPD_CONFIG || userStoreDir(env);
}

/** Signs in to one HTTP server of the store; the authorization URL alone on stdout, progress on stderr. */
async function authCommand(server: string, f: AuthFlags, out: Out): Promise<number> {
  const err = out.warn;
  // Loaded when the command runs, so that `mcpdctl --help` does not compile the store, OAuth and gRPC code.
  const [{ loadStore }, { signIn }, { OAuthStore }] = await Promise.all([
    import('../store/index.js'),
    import('./oauth/sign-in.js'),
    import('../contract/oauth/token-store.js'),
  ]);
  const configDir = (await coreConfigDir(f.socket)) ?? f.configDir;
  const loaded = await loadStore(configDir);
  if (!loaded.ok)
    throw new McpdError('INVALID_ARGUMENT', `the profile store ${configDir} is invalid:\n${loaded.issues.map(formatIssue).join('\n')}`);
  const spec = pickServer(loaded.store, server, f.caller);
  const fingerprint = specFingerprint(spec);
  const store = OAuthStore.inStateDir(stateDirFor(configDir));
  const outcome = await signIn(spec, fingerprint, store, {
    port: intFlag('port', f.port),
    timeoutMs: (intFlag('wait', f.wait) ?? 300) * 1000,
    showUrl: (url) => {
      // The URL goes to stdout alone on its line so scripts (and the tests) can follow it.
      out.write(`${url.href}\n`);
      err(`mcpdctl auth: open the URL above in a browser to sign in to ${spec.name}; waiting for the redirect…\n`);
      if (f.open) openBrowser(url.href);
    },
  });
  const what = outcome.scope ? ` (scope "${outcome.scope}")` : '';
  if (out.json) out.write(`${JSON.stringify({ server: spec.name, fingerprint, signedIn: true, scope: outcome.scope ?? null })}\n`);
  else err(`mcpdctl auth: signed in to ${spec.name}${what}; tokens stored under ${store.dir}\n`);
  return 0;
}

export async function coreConfigDir(socket: string): Promise<string | undefined> {
  const { ControlCalls, createControlClient, waitForReady } = await import('../contract/grpc/control-client.js');
  const client = createControlClient(socket);
  try {
    // A socket another user owns could be a squatter naming a store of its choosing.
    assertSocketOwner(socket);
    await waitForReady(client, 1000);
    return (await new ControlCalls(client).getInfo()).configDir || undefined;
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

/** The server by name in the caller's profile, or in the only profile that has it. */
export function pickServer(store: ProfileStore, name: string, caller: string | undefined): ServerSpec {
  if (caller !== undefined) {
    const profile = profileFor(store, caller);
    const spec = profile.servers.find((s) => s.name === name);
    if (!spec) throw new McpdError('NOT_FOUND', `profile ${profile.name} (caller ${caller}) has no server ${name}`);
    return spec;
  }
  const found = [...store.profiles.values()].flatMap((p) => p.servers.filter((s) => s.name === name).map((s) => ({ p, s })));
  const [first] = found;
  if (first === undefined) throw new McpdError('NOT_FOUND', `no profile in ${store.dir} has a server ${name}`);
  const distinct = new Set(found.map((x) => specFingerprint(x.s)));
  if (distinct.size > 1) {
    throw new McpdError(
      'INVALID_ARGUMENT',
      `profiles ${found.map((x) => x.p.name).join(', ')} each define a different server ${name}; say which with --caller NAME`,
    );
  }
  return first.s;
}

function intFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new McpdError('INVALID_ARGUMENT', `--${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** Best effort: $BROWSER, else the desktop's opener; the URL is printed either way. */
function openBrowser(url: string): void {
  const cmd = process.env.BROWSER || (process.platform === 'darwin' ? 'open' : 'xdg-open');
  try {
    const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
}
