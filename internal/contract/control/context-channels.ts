/**
 * Which context channels a caller has: the Desktop (`mcpd://desktop`) shows the `window://` resources of
 * its servers, the Finder (`mcpd://finder`, tool `mcpd_finder`) their `dpe://` documents. A channel is
 * offered only where it can return something: some server of the caller's profile lists such a
 * resource or template. The core decides it with this one function and lists the channels itself.
 */
export interface ContextChannels {
  desktop: boolean;
  finder: boolean;
}

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
