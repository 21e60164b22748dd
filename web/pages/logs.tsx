import { useEffect, useRef, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import type { CallerRow, LogBatch } from '../../internal/contract/dashboard/dashboard-events.js';
import type { LogRecord } from '../../internal/contract/control/control-areas.js';
import type { LogLevel } from '../../internal/contract/model/profile.js';
import { LogRows, textOf } from './log-rows.js';

/** Entries this page keeps; older ones leave as new ones come (the page says so). */
const KEEP = 20_000;
/** Entries the core keeps for a viewer that arrives later (its log bus backlog). */
const CORE_BACKLOG = 1000;
const LEVELS: LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

interface Buffer {
  all: LogRecord[];
  received: number;
  dropped: number;
  servers: Set<string>;
}

const empty = (): Buffer => ({ all: [], received: 0, dropped: 0, servers: new Set() });

/**
 * Live logs, for one caller or all. Entries arrive in batches; the view re-renders at most once a
 * frame, and only the rows in sight are in the DOM (virtualised), so a fast stream stays smooth.
 * Pause freezes the rows, not the counters.
 */
export function Logs({ callers, initialCaller }: { callers: CallerRow[]; initialCaller?: string }) {
  const [caller, setCaller] = useState(initialCaller ?? '');
  // The core logs at info: debug would show nothing more by default and hide what matters.
  const [level, setLevel] = useState<LogLevel>('info');
  const [server, setServer] = useState('');
  const [q, setQ] = useState('');
  const [paused, setPaused] = useState<LogRecord[] | undefined>(undefined);
  const [, setTick] = useState(0);
  const buf = useRef<Buffer>(empty());
  const frame = useRef(0);

  useEffect(() => {
    buf.current = empty();
    setTick((t) => t + 1);
    const off = conn.on('logs', (b: LogBatch) => {
      if ((b.caller ?? '') !== caller) return;
      const s = buf.current;
      for (const e of b.entries) {
        s.all.push(e);
        if (e.server) s.servers.add(e.server);
      }
      if (s.all.length > KEEP) s.all.splice(0, s.all.length - KEEP);
      s.received += b.entries.length;
      s.dropped += b.dropped;
      if (!frame.current) frame.current = requestAnimationFrame(() => ((frame.current = 0), setTick((t) => t + 1)));
    });
    const offConnect = conn.onConnect(
      // Ignored: a failed watch shows as a dropped connection, which re-watches on connect.
      () => void conn.ask('watch', { kind: 'logs', caller: caller || undefined, minLevel: level }).catch(() => {}),
    );
    return () => {
      off();
      offConnect();
      // Ignored: the page is leaving: an unwatch that fails ends with the socket anyway.
      void conn.ask('unwatch', { kind: 'logs' }).catch(() => {});
    };
  }, [caller, level]);

  const s = buf.current;
  const needle = q.trim().toLowerCase();
  const shown = (paused ?? s.all).filter(
    (e) => (!server || e.server === server) && (!needle || `${e.event} ${textOf(e)} ${e.server ?? ''}`.toLowerCase().includes(needle)),
  );
  return (
    <div class="logs">
      <div class="list-bar">
        <label>
          caller{' '}
          <select value={caller} onChange={(e) => setCaller((e.target as HTMLSelectElement).value)}>
            <option value="">all callers</option>
            {callers.map((c) => (
              <option value={c.caller}>{c.caller}</option>
            ))}
          </select>
        </label>
        <label>
          level{' '}
          <select value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value as LogLevel)}>
            {LEVELS.map((l) => (
              <option value={l}>{l === 'info' ? 'info (the core’s level)' : l}</option>
            ))}
          </select>
        </label>
        <label>
          server{' '}
          <select value={server} onChange={(e) => setServer((e.target as HTMLSelectElement).value)}>
            <option value="">all servers</option>
            {[...s.servers].sort().map((n) => (
              <option value={n}>{n}</option>
            ))}
          </select>
        </label>
        <input
          type="search"
          aria-label="search logs"
          placeholder="search…"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
        <button aria-pressed={paused !== undefined} onClick={() => setPaused(paused ? undefined : [...s.all])}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </div>
      <p class="muted" data-testid="log-counts">
        received <span data-received>{s.received}</span> · dropped <span data-dropped>{s.dropped}</span> · showing{' '}
        <span data-shown>{shown.length}</span>
        {paused && ' (paused: new entries are counted, shown on Resume)'} · this page keeps the last {KEEP.toLocaleString('en')} entries;
        the core replays its last {CORE_BACKLOG.toLocaleString('en')} to a page that opens
      </p>
      {shown.length === 0 ? <p class="empty">no log entries{needle || server ? ' match' : ' yet'}</p> : <LogRows rows={shown} />}
    </div>
  );
}
