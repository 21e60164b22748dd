import { useEffect, useRef, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import type { CallerRow, LogBatch } from '../../internal/contract/dashboard/dashboard-events.js';
import type { LogRecord } from '../../internal/contract/control/control-areas.js';
import type { LogLevel } from '../../internal/contract/model/profile.js';

const KEEP = 20_000;
const ROW = 20;
const LEVELS: LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Live logs, for one caller or all. Entries arrive in batches; the view re-renders at most once a
 * frame, and only the rows in sight are in the DOM (virtualised), so a fast stream stays smooth.
 */
export function Logs({ callers, initialCaller }: { callers: CallerRow[]; initialCaller?: string }) {
  const [caller, setCaller] = useState(initialCaller ?? '');
  const [level, setLevel] = useState<LogLevel>('debug');
  const [server, setServer] = useState('');
  const [q, setQ] = useState('');
  const [paused, setPaused] = useState(false);
  const [, setTick] = useState(0);
  const buf = useRef<{ all: LogRecord[]; received: number; dropped: number; servers: Set<string> }>({
    all: [],
    received: 0,
    dropped: 0,
    servers: new Set(),
  });
  const frame = useRef(0);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  useEffect(() => {
    buf.current = { all: [], received: 0, dropped: 0, servers: new Set() };
    setTick((t) => t + 1);
    const off = conn.on('logs', (v) => {
      const b: LogBatch = v;
      if ((b.caller ?? '') !== caller) return;
      const s = buf.current;
      for (const e of b.entries) {
        s.all.push(e);
        if (e.server) s.servers.add(e.server);
      }
      if (s.all.length > KEEP) s.all.splice(0, s.all.length - KEEP);
      s.received += b.entries.length;
      s.dropped += b.dropped;
      if (!pausedRef.current && !frame.current) frame.current = requestAnimationFrame(() => ((frame.current = 0), setTick((t) => t + 1)));
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
  const shown = s.all.filter(
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
              <option value={l}>{l}</option>
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
          placeholder="search logs…"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
        <button aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <span class="muted" data-testid="log-counts">
          received <span data-received>{s.received}</span> · dropped <span data-dropped>{s.dropped}</span> · showing{' '}
          <span data-shown>{shown.length}</span>
        </span>
      </div>
      {shown.length === 0 ? (
        <p class="empty">no log entries{needle || server ? ' match' : ' yet'}</p>
      ) : (
        <LogRows rows={shown} follow={!paused} />
      )}
    </div>
  );
}

/** The message, or (core events whose message is their name) the fields that say what happened. */
function textOf(e: LogRecord): string {
  if (e.message && e.message !== e.event) return e.message;
  return e.fields && Object.keys(e.fields).length > 0 ? JSON.stringify(e.fields) : '';
}

function LogRows({ rows, follow }: { rows: LogRecord[]; follow: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const height = 480;
  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = rows.length * ROW;
  });
  const first = Math.max(0, Math.floor(top / ROW) - 5);
  const last = Math.min(rows.length, first + Math.ceil(height / ROW) + 10);
  return (
    <div class="log-box" ref={box} tabIndex={0} aria-label="log entries" onScroll={(e) => setTop((e.target as HTMLDivElement).scrollTop)}>
      <div style={{ height: `${rows.length * ROW}px`, position: 'relative' }}>
        {rows.slice(first, last).map((e, i) => (
          <div class={`log-row lvl-${e.level}`} style={{ top: `${(first + i) * ROW}px` }}>
            <span class="muted">{new Date(e.time).toISOString().slice(11, 23)}</span> <span class="lvl">{e.level}</span>{' '}
            <span class="badge">{e.server ?? e.source}</span> <span>{e.event}</span> <span>{textOf(e)}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
