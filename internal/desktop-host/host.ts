import { realpath, stat } from 'node:fs/promises';
import { release } from 'node:os';
import { BridgeError, invalid } from '../contract/desktop-bridge/errors.js';
import { ConfirmTokens } from './domain/confirm-tokens.js';
import type { DesktopBackend, Meta } from '../contract/desktop-bridge/types.js';
import { objectAt, parseMeta, stringAt } from './domain/validate.js';
import { realClock, type Clock } from './clock.js';
import { Executions, type CallContext } from './execution.js';
import { Lane } from './lane.js';
import { confirmGate, issueToken } from './confirm-gate.js';
import { findMethod, observeMethod, waitUntilMethod } from './read-methods.js';
import type { MethodEnv } from './method-env.js';
import { clickMethod, hotkeyMethod, typeTextMethod } from './action-methods.js';
import { resolveWorkspace } from './workspace.js';

const SCHEMA_VERSION = 1;

export interface HostOptions {
  backend: DesktopBackend;
  workspaceRoot: string;
  hostVersion: string;
  clock?: Clock;
}

type ExecMethod = (env: MethodEnv) => Promise<Record<string, unknown>>;

const EXECUTIONS: Readonly<Record<string, ExecMethod>> = {
  'desktop.observe': observeMethod,
  'desktop.find': findMethod,
  'desktop.waitUntil': waitUntilMethod,
  'desktop.click': clickMethod,
  'desktop.typeText': typeTextMethod,
  'desktop.hotkey': hotkeyMethod,
};

const METHODS = ['desktop.health', 'desktop.doctor', 'desktop.abort', 'desktop.confirm.issue', ...Object.keys(EXECUTIONS)];

/**
 * The Desktop Bridge host, transport-free: `handle(method, params, ctx)` returns the contract result
 * or throws a BridgeError. Every call validates meta and the workspace first.
 */
export class BridgeHost {
  readonly clock: Clock;
  readonly tokens: ConfirmTokens;
  readonly executions: Executions;
  readonly lane = new Lane();
  private rootReal: string | undefined;

  constructor(private readonly opts: HostOptions) {
    this.clock = opts.clock ?? realClock;
    this.tokens = new ConfirmTokens(() => this.clock.now());
    this.executions = new Executions(() => this.clock.now());
  }

  get backend(): DesktopBackend {
    return this.opts.backend;
  }

  /** Resolves the workspace root once; a root that does not exist is a startup error. */
  async start(): Promise<void> {
    let real: string;
    try {
      real = await realpath(this.opts.workspaceRoot);
    } catch (e) {
      throw new Error(`--workspace-root ${this.opts.workspaceRoot} cannot be resolved: ${(e as Error).message}; create it first`);
    }
    // Anyone could plant links and folders in a world-writable root (a shared /tmp): evidence has no safe home there.
    const mode = (await stat(real)).mode;
    if (mode & 0o002)
      throw new Error(
        `--workspace-root ${real} is writable by every user (mode ${(mode & 0o7777).toString(8)}); use a directory of your own (chmod o-w it, or pick another)`,
      );
    this.rootReal = real;
  }

  async handle(method: string, rawParams: unknown, ctx: CallContext): Promise<Record<string, unknown>> {
    if (!this.rootReal) throw new BridgeError('DESKTOP_HOST_NOT_READY', 'the host is still starting; retry shortly');
    if (!METHODS.includes(method))
      throw invalid(`unknown method ${JSON.stringify(method)}; the host serves ${METHODS.join(', ')}`, { method });
    const params = objectAt(rawParams, 'params');
    const meta = parseMeta(params);
    const workspaceReal = await resolveWorkspace(this.rootReal, meta.workspacePath);
    const exec = EXECUTIONS[method];
    if (exec) {
      const gate = confirmGate(method, params, meta, ctx, this.tokens);
      return this.executions.run(method, meta, workspaceReal, ctx, (e) =>
        exec({ params, exec: e, backend: this.backend, clock: this.clock, lane: this.lane, gate }),
      );
    }
    return this.control(method, params, meta, ctx);
  }

  private async control(method: string, params: Record<string, unknown>, meta: Meta, ctx: CallContext): Promise<Record<string, unknown>> {
    const peer = { pid: ctx.peerPid ?? null, connectionId: ctx.connectionId };
    switch (method) {
      case 'desktop.health': {
        const report = await this.backend.doctor();
        return {
          hostVersion: this.opts.hostVersion,
          platform: this.backend.platform,
          os: `${process.platform} ${release()}`,
          permissions: Object.fromEntries(Object.entries(report.permissions).map(([k, v]) => [k, v.granted ? 'granted' : 'missing'])),
          bridge: { schemaVersion: SCHEMA_VERSION, transport: 'unix-socket-ndjson' },
          peer,
        };
      }
      case 'desktop.doctor':
        return { ...(await this.backend.doctor()), peer };
      case 'desktop.abort': {
        if (params.requestId === undefined && params.executionId === undefined)
          throw invalid('desktop.abort needs params.requestId (the meta.requestId of the running request) or params.executionId', {
            field: 'params.requestId',
          });
        const target =
          params.requestId !== undefined
            ? stringAt(params.requestId, 'params.requestId')
            : stringAt(params.executionId, 'params.executionId');
        const done = this.executions.abort(target, `requestId ${meta.requestId}`);
        return { aborted: true, executionId: done.executionId, requestId: done.requestId };
      }
      default:
        return issueToken(params, ctx, this.tokens);
    }
  }

  /** The connection closed: its tokens die with it. */
  connectionClosed(connectionId: string): void {
    this.tokens.forgetConnection(connectionId);
  }
}
