/** Before the MCP face asks: the target found and placed, so the question names it and the action is held to it. */
import { BridgeError } from '../../contract/desktop-bridge/errors.js';
import type { InputPlace, Route } from '../../contract/desktop-bridge/types.js';
import { outsideRoute } from '../action-methods.js';
import type { BridgeHost } from '../host.js';

type Params = Record<string, unknown>;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Resolves a side effect's target now — a selector through `find` (desktop.find, with its evidence), an
 * elementId as given — and the application and window the input will reach. The params come back pinned to
 * them: the element by its elementId, the route narrowed to that application (name and pid) and that window's
 * exact title. The host checks that route before acting and again right before input, so what the user
 * allowed is where the input goes, or nothing happens. A missing element fails here, before anyone is asked.
 */
export async function pinTarget(
  host: BridgeHost,
  params: Params,
  find: (selector: unknown) => Promise<Params>,
): Promise<{ params: Params; place: InputPlace }> {
  const route = params.route as Route | undefined;
  const target = params.target as { elementRef?: { elementId: string }; selector?: unknown } | undefined;
  let elementId = target?.elementRef?.elementId;
  if (elementId === undefined && target?.selector !== undefined) {
    const found = (await find(target.selector)) as { elementRefs?: { elementId: string }[] };
    elementId = found.elementRefs?.[0]?.elementId;
    if (elementId === undefined)
      throw new BridgeError(
        'DESKTOP_ELEMENT_NOT_FOUND',
        `no element matches the selector ${JSON.stringify(target.selector)}; the user was not asked`,
        {
          selector: target.selector as object,
        },
      );
  }
  const place = await host.backend.place(elementId, route);
  const why = outsideRoute(place, route);
  if (why)
    throw new BridgeError(
      'DESKTOP_ELEMENT_NOT_FOUND',
      `the target is outside the route ${JSON.stringify(route)}: ${why}; the user was not asked`,
      {
        reason: 'route-mismatch',
      },
    );
  const pinnedRoute: Route = {
    app: { name: place.app.name, ...(place.app.pid !== undefined ? { pid: place.app.pid } : {}) },
    ...(place.windowTitle !== null ? { window: { titlePattern: `^${escapeRegExp(place.windowTitle)}$` } } : {}),
  };
  return {
    params: { ...params, route: pinnedRoute, ...(elementId !== undefined ? { target: { elementRef: { elementId } } } : {}) },
    place,
  };
}
