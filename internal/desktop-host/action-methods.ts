import { cutText } from '../shared/unicode.js';
import { BridgeError } from '../contract/desktop-bridge/errors.js';
import type { InputPlace, Route } from '../contract/desktop-bridge/types.js';
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

/** Why `place` is outside `route`, or undefined when the route allows it (no route allows anything). */
export function outsideRoute(place: InputPlace, route: Route | undefined): string | undefined {
  const want = route?.app;
  if (want?.name !== undefined && place.app.name !== want.name) return `it belongs to application ${place.app.name}, not ${want.name}`;
  if (want?.pid !== undefined && place.app.pid !== want.pid) return `it belongs to pid ${place.app.pid ?? 'unknown'}, not ${want.pid}`;
  const pattern = route?.window?.titlePattern;
  if (pattern !== undefined && !new RegExp(pattern).test(place.windowTitle ?? ''))
    return `its window ${JSON.stringify(place.windowTitle)} does not match route.window.titlePattern ${JSON.stringify(pattern)}`;
  return undefined;
}

/** Where the input goes, checked against the route: an element of another application is never acted on. */
async function placeWithin(env: MethodEnv, elementId: string | undefined, route: Route | undefined): Promise<InputPlace> {
  const place = await env.backend.place(elementId, route);
  const why = outsideRoute(place, route);
  if (why)
    throw new BridgeError(
      'DESKTOP_ELEMENT_NOT_FOUND',
      `${elementId ? `element ${elementId}` : 'the input'} is outside the route ${JSON.stringify(route)}: ${why}; nothing was done`,
      { elementId: elementId ?? null, reason: 'route-mismatch', app: place.app.name, windowTitle: place.windowTitle },
    );
  return place;
}

/**
 * Lane, target and its place checked against the route, confirmation consumed, then the place checked again
 * and one last abort check right before input: nothing is injected after an abort, into another application,
 * or into an element that is gone.
 */
async function act<T>(
  env: MethodEnv,
  route: Route | undefined,
  prepare: () => Promise<string | undefined>,
  effect: (elementId: string | undefined) => Promise<T>,
): Promise<T> {
  return env.lane.run(env.exec.signal, async () => {
    const elementId = await prepare();
    const place = await placeWithin(env, elementId, route);
    await env.exec.evidence.trace('target-placed', { elementId: elementId ?? null, app: place.app.name, windowTitle: place.windowTitle });
    env.exec.checkpoint();
    const { via } = env.gate();
    await env.exec.evidence.trace('confirmed', { via, elementId });
    env.exec.checkpoint();
    await placeWithin(env, elementId, route);
    env.exec.checkpoint();
    return effect(elementId);
  });
}

export async function clickMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const target = parseTarget(env.params.target, true)!;
  const elementId = await act(
    env,
    route,
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
      `params.text must be a string of 1–10000 characters (got ${cutText(JSON.stringify(text ?? null) ?? '', 40)})`,
      { field: 'params.text' },
    );
  const options = optionalObject(env.params.options, 'params.options') ?? {};
  const clearBefore = optionalBool(options.clearBefore, 'params.options.clearBefore') ?? false;
  const { elementId, check } = await act(
    env,
    route,
    async () => (target ? resolveTarget(env, route, target) : undefined),
    async (id) => ({ elementId: id, check: await env.backend.typeText(id, text, route, { clearBefore, signal: env.exec.signal }) }),
  );
  await env.exec.evidence.trace('typed', { elementId: elementId ?? null, length: text.length, clearBefore, ...check });
  // `verified`: read back from the field and found whole; false says why it could not be checked.
  const unverified = check.verified ? {} : { unverifiedReason: check.reason };
  return {
    typed: true,
    verified: check.verified,
    ...unverified,
    elementId: elementId ?? null,
    evidence: { dir: `${env.exec.evidence.dir}/` },
  };
}

export async function hotkeyMethod(env: MethodEnv): Promise<Record<string, unknown>> {
  const route = parseRoute(env.params.route);
  const keys = parseKeys(env.params.keys);
  optionalObject(env.params.options, 'params.options');
  await act(
    env,
    route,
    async () => undefined,
    () => env.backend.key(keys, route),
  );
  await env.exec.evidence.trace('sent', { keys });
  return { sent: true, keys, evidence: { dir: `${env.exec.evidence.dir}/` } };
}
