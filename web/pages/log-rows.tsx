import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { LogRecord } from '../../internal/contract/control/control-areas.js';

const ROW = 20;

/**
 * The rows, virtualised. It follows new entries only while scrolled to the bottom: scrolling up to
 * read stops the jumps, scrolling back down resumes them. A row opens (click or Enter) to show the
 * whole entry below the box.
 */
export function LogRows({ rows }: { rows: LogRecord[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(480);
  const [open, setOpen] = useState<LogRecord | undefined>();
  const follow = useRef(true);
  useLayoutEffect(() => {
    if (follow.current && box.current) box.current.scrollTop = rows.length * ROW;
  });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const onScroll = (el: HTMLDivElement) => {
    setTop(el.scrollTop);
    follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW;
  };
  const first = Math.max(0, Math.floor(top / ROW) - 5);
  const last = Math.min(rows.length, first + Math.ceil(height / ROW) + 10);
  return (
    <>
      <div class="log-box" ref={box} tabIndex={0} aria-label="log entries" onScroll={(e) => onScroll(e.target as HTMLDivElement)}>
        <div style={{ height: `${rows.length * ROW}px`, position: 'relative' }}>
          {rows.slice(first, last).map((e, i) => (
            <div
              class={`log-row lvl-${e.level}${open === e ? ' open' : ''}`}
              style={{ top: `${(first + i) * ROW}px` }}
              role="button"
              tabIndex={0}
              title="show the whole entry"
              onClick={() => setOpen(open === e ? undefined : e)}
              onKeyDown={(k) => k.key === 'Enter' && setOpen(open === e ? undefined : e)}
            >
              <span class="muted">{new Date(e.time).toISOString().slice(11, 23)}</span> <span class="lvl">{e.level}</span>{' '}
              <span class="badge">{e.server ?? e.source}</span> <span>{e.event}</span> <span>{textOf(e)}</span>
            </div>
          ))}
        </div>
      </div>
      {open && (
        <section class="detail log-entry" aria-label="log entry">
          <div class="item-head">
            <strong>{open.event}</strong>
            <span class="muted">{new Date(open.time).toISOString()}</span>
            <span class="badge">{open.level}</span>
            <button onClick={() => setOpen(undefined)}>Close</button>
          </div>
          <pre class="text">{JSON.stringify(open, null, 2)}</pre>
        </section>
      )}
    </>
  );
}

/** The message, or (core events whose message is their name) the fields that say what happened. */
export function textOf(e: LogRecord): string {
  if (e.message && e.message !== e.event) return e.message;
  return e.fields && Object.keys(e.fields).length > 0 ? JSON.stringify(e.fields) : '';
}
