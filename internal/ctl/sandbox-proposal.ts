import { isAbsolute, resolve } from 'node:path';
import { knownApiHosts } from './known-api-hosts.js';

/**
 * The sandbox `mcpdctl import` and `mcpdctl add` propose for a stdio server from what its entry says:
 * paths in its arguments become read-write grants (the server was given them to work on), URLs in its
 * arguments and environment and the API hosts of known credentials become network allows. The user sees
 * it, and why each grant is there, before anything is written. Pure: no I/O.
 */
export interface ProposedSandbox {
  filesystem: { read: string[]; write: string[] };
  network: { allow: string[] };
}

export interface SandboxProposal {
  sandbox: ProposedSandbox;
  /** One line per grant and per path left out, saying where it came from. */
  reasons: string[];
}

// Script files are granted by the sandbox itself (their package root, read-only): not proposed again.
const SCRIPT = /\.(m?js|cjs|ts|py)$/;
const HOME_ALONE = /^(~|\$\{HOME\}|\$HOME)\/?$/;
const URL_RE = /\b(?:https?|wss?):\/\/([A-Za-z0-9.-]+)(?::(\d+))?/g;

/** An argument's path, if it names one: `/abs`, `~/…`, `${HOME}/…`, `./…`, `../…`, `file://…`, or `--opt=<one of those>`. */
function pathIn(arg: string): string | undefined {
  const value = /^--?[A-Za-z][\w-]*=(.*)$/.exec(arg)?.[1] ?? arg;
  const p = value.startsWith('file://') ? value.slice('file://'.length) : value;
  return /^(\/|~(\/|$)|\$\{HOME\}|\$HOME(\/|$)|\.\.?\/)/.test(p) ? p : undefined;
}

function hostsIn(text: string): string[] {
  return [...text.matchAll(URL_RE)].map(([, host = '', port]) => (port ? `${host.toLowerCase()}:${port}` : host.toLowerCase()));
}

/** `args` are the program's arguments (without the program); `cwd` the folder relative paths are in, when known. */
export function proposeSandbox(args: readonly string[], env: Readonly<Record<string, string>>, cwd?: string): SandboxProposal {
  const write: string[] = [];
  const allow: string[] = [];
  const reasons: string[] = [];
  const add = (list: string[], item: string, why: string): void => {
    if (list.includes(item)) return;
    list.push(item);
    reasons.push(`${list === write ? 'filesystem.write' : 'network.allow'} ${item}: ${why}`);
  };
  for (const arg of args) {
    for (const host of hostsIn(arg)) add(allow, host, `a URL in argument "${arg}"`);
    const p = pathIn(arg);
    if (p === undefined || SCRIPT.test(p)) continue;
    if (p === '/' || HOME_ALONE.test(p)) {
      reasons.push(`not granted: "${p}" (the whole home folder or / cannot be granted); grant the folders the server needs`);
      continue;
    }
    if (p.startsWith('.')) {
      if (cwd && isAbsolute(cwd)) add(write, resolve(cwd, p), `the path argument "${arg}" (in ${cwd})`);
      else
        reasons.push(
          `not granted: "${p}" is relative to wherever the client started the server; write the absolute path in sandbox.filesystem`,
        );
      continue;
    }
    add(write, p.replace(/\/+$/, ''), `the path argument "${arg}"`);
  }
  for (const [name, value] of Object.entries(env)) {
    for (const host of hostsIn(value)) add(allow, host, `a URL in env ${name}`);
    for (const host of knownApiHosts(name)) add(allow, host, `env ${name} is a credential for it`);
  }
  return { sandbox: { filesystem: { read: [], write }, network: { allow } }, reasons };
}
