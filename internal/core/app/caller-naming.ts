import { profileFor, type Profile, type ProfileStore } from '../../contract/model/profile.js';

/**
 * Tool names are built per *view*: a profile as one caller sees it. A caller with its own `reserve`
 * (callers.yaml `{ profile, reserve }`) whose value differs from its profile's `namespace.reserve` gets
 * a view of its own — the same servers and pools, names fitted to its client's budget; every other
 * caller shares the profile's view, keyed by the profile's name. The key of a caller's own view cannot
 * be a profile name (a NUL never is), and never reaches a message: `viewProfileName` gives the profile.
 */
const VIEW_MARK = '\u0000reserve ';

function viewKey(profile: string, reserve: number): string {
  return `${profile}${VIEW_MARK}${reserve}`;
}

/** The key of the tool view `caller` gets under `store`. */
export function toolViewOf(store: ProfileStore, caller: string): string {
  const profile = profileFor(store, caller);
  const own = store.callerReserves?.get(caller);
  return own === undefined || own === (profile.namespace.reserve ?? 0) ? profile.name : viewKey(profile.name, own);
}

/** The profile a view key stands for. */
export function viewProfileName(key: string): string {
  const at = key.indexOf(VIEW_MARK);
  return at < 0 ? key : key.slice(0, at);
}

/** Every view the store's callers can get: each profile under its own name, plus one per caller reserve that differs. */
export function toolViews(store: ProfileStore): Map<string, Profile> {
  const views = new Map<string, Profile>(store.profiles);
  for (const caller of store.callerReserves?.keys() ?? []) {
    const key = toolViewOf(store, caller);
    if (views.has(key)) continue;
    const profile = profileFor(store, caller);
    const reserve = store.callerReserves?.get(caller) ?? 0;
    views.set(key, { ...profile, namespace: { ...profile.namespace, reserve } });
  }
  return views;
}
