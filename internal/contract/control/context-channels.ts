/**
 * Which context channels a caller has: the Desktop (`mcpd://desktop`) shows the `window://` resources of
 * its servers, the Finder (`mcpd://finder`, tool `mcpd_finder`) their `dpe://` documents. A channel is
 * offered only where it can return something: some server of the caller's profile lists such a
 * resource or template. The gateway, mcpdctl and the core decide it with this one function.
 */
export interface ContextChannels {
  desktop: boolean;
  finder: boolean;
}

export const NO_CONTEXT_CHANNELS: ContextChannels = { desktop: false, finder: false };

/** From the URIs and URI templates the caller's servers list. */
export function contextChannelsOf(uris: Iterable<string>): ContextChannels {
  const out = { desktop: false, finder: false };
  for (const u of uris) {
    const head = u.slice(0, 9).toLowerCase();
    if (head.startsWith('window://')) out.desktop = true;
    else if (head.startsWith('dpe://')) out.finder = true;
  }
  return out;
}

/** The `_meta` key under which the core tells its gateways the caller's channels (first pages of lists). */
export const CONTEXT_CHANNELS_META = 'mcpd/context';

/** Reads the channels from a list result's `_meta` (absent = none: an older core offered none either way). */
export function channelsFromMeta(meta: unknown): ContextChannels {
  const c = meta && typeof meta === 'object' ? (meta as Record<string, unknown>)[CONTEXT_CHANNELS_META] : undefined;
  if (!c || typeof c !== 'object') return NO_CONTEXT_CHANNELS;
  const o = c as Record<string, unknown>;
  return { desktop: o.desktop === true, finder: o.finder === true };
}
