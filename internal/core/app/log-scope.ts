import type { LogRecord } from '../../contract/control/control-areas.js';
import { specFingerprint } from '../../contract/model/fingerprint.js';
import type { LogLevel, Profile } from '../../contract/model/profile.js';
import type { BusEntry, LogView } from '../infra/telemetry/log-bus.js';
import { levelRank } from '../../contract/model/log-level.js';

const serverNames = new WeakMap<Profile, Map<string, string>>();

/** fingerprint → the server's name in this profile (enabled servers only). Cached per loaded profile. */
function profileServers(profile: Profile): Map<string, string> {
  let m = serverNames.get(profile);
  if (!m) {
    m = new Map();
    for (const s of profile.servers) if (!s.disabled && !m.has(specFingerprint(s))) m.set(specFingerprint(s), s.name);
    serverNames.set(profile, m);
  }
  return m;
}

/**
 * What one caller may read: entries about servers of its profile (named as its profile names them),
 * entries about itself, warnings about its profile's file, and global core events; nothing about other
 * profiles' servers or files or other callers.
 * The profile is looked up per entry, so a reload that moves the caller changes the scope at once.
 */
export function callerView(caller: string, minLevel: LogLevel, profileOf: (caller: string) => Profile): LogView {
  const min = levelRank(minLevel);
  return (e: BusEntry): LogRecord | undefined => {
    if (levelRank(e.record.level) < min) return undefined;
    if (e.caller !== undefined && e.caller !== caller) return undefined;
    // A warning about one profile's file is for that profile's callers only (callers.yaml's and
    // runtime.yaml's are for everyone).
    if (e.storeFile !== undefined && isProfileFile(e.storeFile) && e.storeFile !== profileOf(caller).file) return undefined;
    if (e.fingerprint === undefined) return e.record;
    const server = profileServers(profileOf(caller)).get(e.fingerprint);
    if (server === undefined) return undefined;
    return { ...e.record, server };
  };
}

function isProfileFile(file: string): boolean {
  return /[\\/]profiles[\\/][^\\/]+$/.test(file);
}
