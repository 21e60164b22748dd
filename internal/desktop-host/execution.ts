import { randomUUID } from 'node:crypto';
import { BridgeError, toBridgeError } from '../contract/desktop-bridge/errors.js';
import type { Meta } from '../contract/desktop-bridge/types.js';
import { untilAborted } from './clock.js';
import { Evidence } from './evidence.js';

/** What the transport knows about the caller of one request. */
export interface CallContext {
  connectionId: string;
  peerPid?: number;
  /**
   * Aborts when the caller stops waiting — the connection closed, the MCP client cancelled the call — with
   * the reason as a BridgeError: the execution stops as an abort would (no input after it).
   */
  signal?: AbortSignal;
}

/** One running execution: its ids, its evidence folder and the signal that abort / the deadline trip. */
export interface Execution {
  executionId: string;
  meta: Meta;
  method: string;
  evidence: Evidence;
  signal: AbortSignal;
  ctx: CallContext;
  /** When it started, on the host clock: meta.timeoutMs counts from here. */
  startedAtMs: number;
  /** Throws DESKTOP_ABORTED / DESKTOP_TIMEOUT once the execution was stopped: call before each side effect. */
  checkpoint(): void;
}

interface Running {
  exec: Execution;
  controller: AbortController;
}

/** How long a stopped execution's body may take to wind down and say what it did before the stop is answered. */
const STOP_GRACE_MS = 2000;

/**
 * The answer to a stopped execution: the body's own error if it ends within the grace (a backend that stops
 * at the signal says what it had done, e.g. how much was typed), else the stop's reason. A body that never
 * settles is abandoned, as before.
 */
async function stopped(running: Promise<unknown>, reason: unknown): Promise<never> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'grace'>((resolve) => (timer = setTimeout(() => resolve('grace'), STOP_GRACE_MS)));
  const outcome = await Promise.race([
    running.then(
      () => 'done' as const,
      (e: unknown) => ({ error: e }),
    ),
    grace,
  ]);
  clearTimeout(timer);
  const own = typeof outcome === 'object' ? toBridgeError(outcome.error) : undefined;
  const why = toBridgeError(reason);
  throw own?.code === why.code ? own : why;
}

/**
 * The abort registry: every execution in flight, findable by the client's meta.requestId (which the
 * client knows before any answer) and by the host's executionId. The original keyed abort only on an
 * id the client learnt after the fact; here both work.
 */
export class Executions {
  private readonly byRequest = new Map<string, Running>();
  private readonly byExecution = new Map<string, Running>();

  constructor(private readonly now: () => number) {}

  async run<T>(
    method: string,
    meta: Meta,
    workspaceReal: string,
    ctx: CallContext,
    body: (exec: Execution) => Promise<T>,
  ): Promise<T & { executionId: string }> {
    if (this.byRequest.has(meta.requestId))
      throw new BridgeError('DESKTOP_INVALID_REQUEST', `requestId ${meta.requestId} is already running; use a new requestId per request`, {
        field: 'params.meta.requestId',
      });
    const controller = new AbortController();
    const executionId = randomUUID();
    const exec: Execution = {
      executionId,
      meta,
      method,
      ctx,
      startedAtMs: this.now(),
      evidence: new Evidence(workspaceReal, executionId, this.now),
      signal: controller.signal,
      checkpoint: () => {
        if (controller.signal.aborted) throw controller.signal.reason;
      },
    };
    const running = { exec, controller };
    const callerGone = () => controller.abort(toBridgeError(ctx.signal?.reason ?? new BridgeError('DESKTOP_ABORTED', 'the caller left')));
    if (ctx.signal?.aborted) callerGone();
    ctx.signal?.addEventListener('abort', callerGone, { once: true });
    this.byRequest.set(meta.requestId, running);
    this.byExecution.set(executionId, running);
    const timer = setTimeout(
      () =>
        controller.abort(
          new BridgeError('DESKTOP_TIMEOUT', `${method} did not finish within meta.timeoutMs=${meta.timeoutMs}`, {
            timeoutMs: meta.timeoutMs,
          }),
        ),
      meta.timeoutMs,
    );
    try {
      await exec.evidence.trace('start', { method, requestId: meta.requestId, connectionId: ctx.connectionId, peerPid: ctx.peerPid });
      const running = body(exec);
      const result = await Promise.race([running, untilAborted(controller.signal).catch((r: unknown) => stopped(running, r))]);
      const out = { ...result, executionId };
      await exec.evidence.writeJson('result.json', { method, requestId: meta.requestId, result: out });
      await exec.evidence.trace('end', { ok: true });
      return out;
    } catch (e) {
      const err = toBridgeError(e);
      const withId = new BridgeError(err.code, err.message, { ...err.details, executionId });
      await exec.evidence
        .writeJson('result.json', { method, requestId: meta.requestId, executionId, error: withId.toBody() })
        .then(() => exec.evidence.trace('end', { ok: false, code: err.code }))
        .catch(() => undefined); // a forbidden or vanished evidence folder must not hide the original error
      throw withId;
    } finally {
      ctx.signal?.removeEventListener('abort', callerGone);
      clearTimeout(timer);
      controller.abort(new BridgeError('DESKTOP_ABORTED', 'the execution already ended'));
      this.byRequest.delete(meta.requestId);
      this.byExecution.delete(executionId);
      await exec.evidence.close();
    }
  }

  /** Stops a running execution; an id that is not running (unknown or finished) is DESKTOP_INVALID_REQUEST. */
  abort(id: string, by: string): { executionId: string; requestId: string } {
    const r = this.byRequest.get(id) ?? this.byExecution.get(id);
    if (!r)
      throw new BridgeError(
        'DESKTOP_INVALID_REQUEST',
        `no running execution has requestId or executionId ${id}; it never ran or already ended`,
        {
          id,
        },
      );
    r.controller.abort(new BridgeError('DESKTOP_ABORTED', `aborted by ${by}`, { requestId: r.exec.meta.requestId }));
    return { executionId: r.exec.executionId, requestId: r.exec.meta.requestId };
  }

  count(): number {
    return this.byRequest.size;
  }
}
