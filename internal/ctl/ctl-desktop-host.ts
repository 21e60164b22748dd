import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BridgeCallError, BridgeClient } from '../contract/desktop-bridge/bridge-client.js';
import { renderTable, truncate } from './table.js';

export const DESKTOP_HOST_USAGE = `usage: mcpdctl desktop-host <socket> <action> [flags] [--json]

  health | doctor                          the host and what its desktop backend is missing
  observe [--app NAME]                     screenshot + accessibility tree, as evidence
  find    [--role R] [--title T] [--value V] [--limit N] [--app NAME]
  click   (--element ID | --role/--title/--value) [--app NAME] --yes
  type    TEXT [--element ID | --role/--title/--value] [--app NAME] --yes
  hotkey  KEY... (e.g. ctrl k, or ctrl+k) [--app NAME] --yes
  wait    [--role R] [--title T] [--value V] --timeout MS [--poll MS] [--app NAME]

  --workspace DIR   meta.workspacePath: where the evidence goes (default: the current directory)
  --yes             confirm a ui-control action (the CLI then asks the host for a one-time token)`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  yes: { type: 'boolean' },
  app: { type: 'string' },
  role: { type: 'string' },
  title: { type: 'string' },
  value: { type: 'string' },
  element: { type: 'string' },
  limit: { type: 'string' },
  timeout: { type: 'string' },
  poll: { type: 'string' },
  workspace: { type: 'string' },
} as const;

type Flags = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

class UsageError extends Error {}

function int(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

const selector = (f: Flags) => ({ byRole: f.role, titleContains: f.title, valueContains: f.value, limit: int('limit', f.limit) });
const target = (f: Flags) => (f.element ? { elementRef: { elementId: f.element } } : { selector: selector(f) });
const hasTarget = (f: Flags) => Boolean(f.element || f.role || f.title || f.value);

/** The contract method and params (without meta / confirm) of one CLI action. */
function request(action: string, args: string[], f: Flags): { method: string; params: Record<string, unknown>; sideEffect: boolean } {
  const route = f.app ? { app: { name: f.app } } : undefined;
  switch (action) {
    case 'health':
    case 'doctor':
      return { method: `desktop.${action}`, params: {}, sideEffect: false };
    case 'observe':
      return { method: 'desktop.observe', params: { route }, sideEffect: false };
    case 'find':
      return { method: 'desktop.find', params: { route, selector: selector(f) }, sideEffect: false };
    case 'click':
      if (!hasTarget(f)) throw new UsageError('click needs --element ID or a selector (--role, --title, --value)');
      return { method: 'desktop.click', params: { route, target: target(f) }, sideEffect: true };
    case 'type':
      if (args.length !== 1) throw new UsageError('type needs exactly one TEXT argument (quote it)');
      return {
        method: 'desktop.typeText',
        params: { route, text: args[0], ...(hasTarget(f) ? { target: target(f) } : {}) },
        sideEffect: true,
      };
    case 'hotkey':
      if (args.length === 0) throw new UsageError('hotkey needs keys, e.g. `hotkey ctrl k` or `hotkey ctrl+k`');
      return { method: 'desktop.hotkey', params: { route, keys: args.flatMap((a) => a.split('+')).filter(Boolean) }, sideEffect: true };
    case 'wait': {
      const timeoutMs = int('timeout', f.timeout);
      if (timeoutMs === undefined) throw new UsageError('wait needs --timeout MS');
      return {
        method: 'desktop.waitUntil',
        params: { route, condition: { selectorExists: selector(f) }, timeoutMs, pollMs: int('poll', f.poll) },
        sideEffect: false,
      };
    }
    default:
      throw new UsageError(`unknown desktop-host action ${JSON.stringify(action)}`);
  }
}

function human(action: string, r: Record<string, unknown>): string {
  const ev = r.evidence as { dir?: string } | undefined;
  switch (action) {
    case 'health':
      return `host ${r.hostVersion} (${r.platform}, ${r.os}), schema ${(r.bridge as { schemaVersion: number }).schemaVersion}\npermissions: ${Object.entries(
        r.permissions as Record<string, string>,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}\n`;
    case 'doctor':
      return r.healthy ? 'healthy: nothing missing\n' : `NOT healthy:\n${(r.issues as string[]).map((i) => `  - ${i}`).join('\n')}\n`;
    case 'find': {
      const refs = r.elementRefs as { elementId: string; role: string; title: string | null; value: string | null }[];
      return `${renderTable(
        ['ELEMENT', 'ROLE', 'TITLE', 'VALUE'],
        refs.map((e) => [e.elementId, e.role, truncate(e.title ?? '', 40), truncate(e.value ?? '', 30)]),
      )}${r.matched} matched\n`;
    }
    case 'wait':
      return `condition met after ${r.elapsedMs} ms (${r.matched} matched)\n`;
    default:
      return `${action} ok, execution ${r.executionId}${ev?.dir ? `, evidence in ${ev.dir}` : ''}\n`;
  }
}

/**
 * `mcpdctl desktop-host <socket> …`: talks to a desktop host directly (no core). A ui-control action needs
 * --yes; the CLI then obtains a one-time confirm token on its connection and spends it at once.
 * Returns the exit code: 0 ok, 1 the host refused or failed, 2 usage.
 */
export async function desktopHostCommand(argv: string[], write: (s: string) => void, writeErr: (s: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (e) {
    writeErr(`${(e as Error).message}\n\n${DESKTOP_HOST_USAGE}\n`);
    return 2;
  }
  const f = parsed.values as Flags;
  if (f.help) {
    write(`${DESKTOP_HOST_USAGE}\n`);
    return 0;
  }
  const [socket, action, ...args] = parsed.positionals;
  if (!socket || !action) {
    writeErr(`${DESKTOP_HOST_USAGE}\n`);
    return 2;
  }
  let req;
  try {
    req = request(action, args, f);
    if (req.sideEffect && !f.yes) throw new UsageError(`${action} acts on the desktop: add --yes to confirm it`);
  } catch (e) {
    writeErr(`${(e as Error).message}\n\n${DESKTOP_HOST_USAGE}\n`);
    return 2;
  }
  const meta = () => ({
    schemaVersion: 1,
    requestId: randomUUID(),
    workspacePath: resolve(f.workspace ?? process.cwd()),
    timeoutMs: Math.max(60_000, (int('timeout', f.timeout) ?? 0) + 10_000),
  });
  let client: BridgeClient | undefined;
  try {
    client = await BridgeClient.connect(socket);
    let confirm: Record<string, unknown> | undefined;
    if (req.sideEffect) {
      const issued = await client.call('desktop.confirm.issue', { meta: meta(), intent: { method: req.method, params: req.params } });
      confirm = { token: issued.token, approver: 'mcpdctl --yes', approvedAt: new Date().toISOString() };
    }
    const result = await client.call(req.method, { ...req.params, meta: meta(), ...(confirm ? { confirm } : {}) });
    write(f.json ? `${JSON.stringify(result, null, 2)}\n` : human(action, result));
    return 0;
  } catch (e) {
    if (e instanceof BridgeCallError) {
      if (f.json) write(`${JSON.stringify({ error: e.error }, null, 2)}\n`);
      else writeErr(`${e.error.code}: ${e.error.message}\n`);
      return 1;
    }
    writeErr(`${(e as Error).message}\n`);
    return 1;
  } finally {
    client?.close();
  }
}
