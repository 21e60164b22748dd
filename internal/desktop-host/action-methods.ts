import { BridgeError } from '../contract/desktop-bridge/errors.js';
import type { Route } from '../contract/desktop-bridge/types.js';
import { optionalBool, optionalObject, parseKeys, parseRoute, parseTarget, type Target } from './domain/validate.js';
import type { MethodEnv } from './method-env.js';
import { findOnce } from './read-methods.js';

/** The element a target names: an elementRef as given, or the first match of a selector. */
async function resolveTarget(env: MethodEnv, route: Route | undefined, target: Target): Promise<string> {
  if (target.elementRef) return target.elementRef.elementId;
  const sel = target.selector!;
  const { matched, refs } = await findOnce(env, route, sel);
  const [first] = refs;
  if (matched === 0 || first === undefined)
    throw new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `no element matches the selector ${JSON.stringify(sel)}`, { selector: sel });
  await env.exec.evidence.trace('target-resolved', { elementId: first.elementId, matched });
  return first.elementId;
}

/** Lane, then confirmation consumed, then one last abort check: nothing is injected after an abort. */
async function act<T>(
  env: MethodEnv,
  prepare: () => Promise<string | undefined>,
  effect: (elementId: string | undefined) => Promise<T>,
): Promise<T> {
  return env.lane.run(env.exec.signal, async () => {
    const elementId = await prepare();
    env.exec.checkpoint();
    const { via } = env.gate();
    await env.exec.evidence.trace('confirmed', { via, elementId });
    env.exec.checkpoint();
    return effect(elementId);
  });
}

export async function clickMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const target = parseTarget(env.params.target, true)!;
  const elementId = await act(
    env,
    () => resolveTarget(env, route, target),
    async (id) => {
      const pressed = await env.backend.press(id!);
      if (!pressed)
        throw new BridgeError('DESKTOP_ELEMENT_NOT_FOUND', `element ${id} has no press action`, { elementId: id, reason: 'no-action' });
      return id!;
    },
  );
  await env.exec.evidence.trace('clicked', { elementId });
  return { clicked: true, elementId, evidence: { dir: `${env.exec.evidence.dir}/` } };
}

export async function typeTextMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const target = parseTarget(env.params.target, false);
  const text = env.params.text;
  if (typeof text !== 'string' || text.length === 0 || text.length > 10_000)
    throw new BridgeError(
      'DESKTOP_INVALID_REQUEST',
      `params.text must be a string of 1–10000 characters (got ${JSON.stringify(text ?? null)?.slice(0, 40)})`,
      { field: 'params.text' },
    );
  const options = optionalObject(env.params.options, 'params.options') ?? {};
  const clearBefore = optionalBool(options.clearBefore, 'params.options.clearBefore') ?? false;
  const elementId = await act(
    env,
    async () => (target ? resolveTarget(env, route, target) : undefined),
    async (id) => {
      await env.backend.typeText(id, text, route, { clearBefore, signal: env.exec.signal });
      return id;
    },
  );
  await env.exec.evidence.trace('typed', { elementId: elementId ?? null, length: text.length, clearBefore });
  return { typed: true, elementId: elementId ?? null, evidence: { dir: `${env.exec.evidence.dir}/` } };
}

export async function hotkeyMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const keys = parseKeys(env.params.keys);
  optionalObject(env.params.options, 'params.options');
  await act(
    env,
    async () => undefined,
    () => env.backend.key(keys, route),
  );
  await env.exec.evidence.trace('sent', { keys });
  return { sent: true, keys, evidence: { dir: `${env.exec.evidence.dir}/` } };
}
