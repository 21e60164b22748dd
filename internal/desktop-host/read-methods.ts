import { BridgeError, invalid, toBridgeError } from '../contract/desktop-bridge/errors.js';
import { findIn } from './domain/selector.js';
import type { Route, Selector, TreeBounds, TreeSnapshot } from '../contract/desktop-bridge/types.js';
import { intAt, objectAt, optionalBool, optionalInt, optionalObject, parseRoute, parseSelector } from './domain/validate.js';
import type { Execution } from './execution.js';
import type { MethodEnv } from './method-env.js';

const DEFAULT_BOUNDS = { maxDepth: 32, maxNodes: 2000 };
const DEFAULT_POLL_MS = 500;
const MIN_POLL_MS = 10;

/**
 * Traversal bounds: the request's own, and a deadline short of meta.timeoutMs (by a fifth, at most 1 s) so a
 * huge tree comes back truncated, with its evidence written, instead of the whole request timing out.
 */
function boundsFor(env: MethodEnv, depth?: number, nodes?: number): TreeBounds {
  const budget = env.exec.meta.timeoutMs;
  return {
    maxDepth: depth ?? DEFAULT_BOUNDS.maxDepth,
    maxNodes: nodes ?? DEFAULT_BOUNDS.maxNodes,
    deadlineMs: env.exec.startedAtMs + budget - Math.min(1000, budget / 5),
  };
}

/** The tree as ax.json: what the host saw, so a result can be audited later. */
async function writeTree(exec: Execution, snap: TreeSnapshot, extra: Record<string, unknown> = {}): Promise<string> {
  return exec.evidence.writeJson('ax.json', {
    ...extra,
    app: snap.app,
    windowTitle: snap.windowTitle,
    truncated: snap.truncated,
    truncatedBy: snap.truncatedBy,
    nodes: snap.nodes,
  });
}

export async function observeMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const o = optionalObject(env.params.options, 'params.options') ?? {};
  const shot = optionalBool(o.includeScreenshot, 'params.options.includeScreenshot') ?? true;
  const tree = optionalBool(o.includeAxTree, 'params.options.includeAxTree') ?? true;
  const bounds = boundsFor(
    env,
    optionalInt(o.axMaxDepth, 'params.options.axMaxDepth', 1, 256),
    optionalInt(o.axMaxNodes, 'params.options.axMaxNodes', 1, 100_000),
  );
  const { exec } = env;
  const evidence: Record<string, unknown> = { dir: `${exec.evidence.dir}/` };
  let snap: TreeSnapshot | undefined;
  if (tree) {
    snap = await env.backend.snapshot(route, bounds);
    evidence.axPath = await writeTree(exec, snap);
  }
  exec.checkpoint();
  let screen: { width: number; height: number } | undefined;
  let screenshotError: Record<string, unknown> | undefined;
  if (shot) {
    try {
      const left = exec.startedAtMs + exec.meta.timeoutMs - env.clock.now();
      const { png, width, height } = await env.backend.screenshot({ timeoutMs: Math.max(1, left), signal: exec.signal });
      evidence.screenshotPath = await exec.evidence.writeBytes('observe.png', png);
      screen = { width, height };
    } catch (e) {
      exec.checkpoint(); // an abort or the deadline ends the request as such
      // The tree is still worth having: the screenshot's failure is part of the answer, not the end of it.
      const err = toBridgeError(e);
      if (err.code === 'DESKTOP_WORKSPACE_FORBIDDEN') throw err;
      screenshotError = { code: err.code, message: err.message };
      await exec.evidence.trace('screenshot-failed', screenshotError);
    }
  }
  await exec.evidence.trace('observed', { nodes: snap?.nodes.length ?? 0, truncated: snap?.truncated ?? false });
  return {
    routeResolved: { app: snap?.app?.name ?? null, pid: snap?.app?.pid ?? null, windowTitle: snap?.windowTitle ?? null },
    nodeCount: snap?.nodes.length ?? 0,
    truncated: snap?.truncated ?? false,
    ...(snap?.truncatedBy ? { truncatedBy: snap.truncatedBy } : {}),
    ...(screen ? { screen } : {}),
    ...(screenshotError ? { screenshotError } : {}),
    evidence,
  };
}

/** One find pass: snapshot within bounds, filter by the selector. */
export async function findOnce(env: MethodEnv, route: Route | undefined, sel: Selector) {
  const snap = await env.backend.snapshot(route, boundsFor(env));
  return { snap, ...findIn(snap.nodes, sel) };
}

export async function findMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const sel = parseSelector(env.params.selector, 'params.selector');
  const { snap, refs, matched } = await findOnce(env, route, sel);
  const axPath = await writeTree(env.exec, snap, { selector: sel, matched: refs.map((r) => r.elementId) });
  await env.exec.evidence.trace('found', { matched });
  return { elementRefs: refs, matched, truncated: snap.truncated, evidence: { dir: `${env.exec.evidence.dir}/`, axPath } };
}

/** Polls find every pollMs until the selector matches, the hard timeout passes, or the execution is aborted. */
export async function waitUntilMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const cond = objectAt(env.params.condition, 'params.condition');
  if (cond.selectorExists === undefined)
    throw invalid('params.condition must be { selectorExists: {…} } (the only condition of schema 1)', { field: 'params.condition' });
  const sel = parseSelector(cond.selectorExists, 'params.condition.selectorExists');
  const timeoutMs = intAt(env.params.timeoutMs, 'params.timeoutMs', 1, env.exec.meta.timeoutMs);
  const pollMs = optionalInt(env.params.pollMs, 'params.pollMs', MIN_POLL_MS, 60_000) ?? DEFAULT_POLL_MS;
  const start = env.clock.now();
  let polls = 0;
  for (;;) {
    env.exec.checkpoint();
    const { snap, matched, refs } = await findOnce(env, route, sel);
    polls++;
    const elapsedMs = env.clock.now() - start;
    if (matched > 0) {
      const axPath = await writeTree(env.exec, snap, { selector: sel, matched: refs.map((r) => r.elementId) });
      await env.exec.evidence.trace('condition-met', { polls, elapsedMs });
      return { ok: true, matched, elapsedMs, polls, elementRefs: refs, evidence: { dir: `${env.exec.evidence.dir}/`, axPath } };
    }
    const left = timeoutMs - elapsedMs;
    if (left <= 0) {
      await env.exec.evidence.trace('timeout', { polls, elapsedMs });
      throw new BridgeError('DESKTOP_TIMEOUT', `no element matched the selector within timeoutMs=${timeoutMs} (${polls} polls)`, {
        timeoutMs,
        polls,
        elapsedMs,
      });
    }
    await env.clock.sleep(Math.min(pollMs, left), env.exec.signal);
  }
}
