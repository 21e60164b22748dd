import { useEffect, useState } from 'preact/hooks';
import { CallerFilter } from '../caller-filter.js';
import { conn } from '../conn.js';
import type { AuditEntry } from '../../internal/contract/audit/audit-entry.js';
import type { CallerRow, DashboardPushes } from '../../internal/contract/dashboard/dashboard-events.js';

/** Entries this page keeps (newest first on screen); the core replays its last 500 to a page that opens. */
const KEEP = 2000;

/**
 * The audit log, live: each entry as the core wrote it (docs/audit.md), one caller's or all. The chain is
 * checked by `mcpdctl audit verify`; this page shows what happened.
 */
export function Audit({ callers }: { callers: CallerRow[] }) {
  const [caller, setCaller] = useState('');
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [off, setOff] = useState(false);

  useEffect(() => {
    setEntries([]);
    const offPush = conn.on('audit', (b: DashboardPushes['audit']) => {
      if ((b.caller ?? '') !== caller) return;
      setOff(b.off);
      if (b.entries.length > 0) setEntries((was) => [...was, ...b.entries].slice(-KEEP));
    });
    const offConnect = conn.onConnect(() => {
      // Reconnected: the core replays its recent entries again.
      setEntries([]);
      // Ignored: a failed watch shows as a dropped connection, which re-watches on connect.
      void conn.ask('watch', { kind: 'audit', caller: caller || undefined }).catch(() => {});
    });
    return () => {
      offPush();
      offConnect();
      // Ignored: the page is leaving: an unwatch that fails ends with the socket anyway.
      void conn.ask('unwatch', { kind: 'audit' }).catch(() => {});
    };
  }, [caller]);

  return (
    <div class="audit">
      <div class="list-bar">
        <CallerFilter label="audit caller" value={caller} names={callers.map((c) => c.caller)} onChange={setCaller} />
      </div>
      {off ? (
        <p class="empty">the audit log is off (runtime.yaml: audit.enabled is false)</p>
      ) : entries.length === 0 ? (
        <p class="empty">no audit entries yet</p>
      ) : (
        <div class="table-scroll">
          <table aria-label="audit log">
            <thead>
              <tr>
                <th>#</th>
                <th>time</th>
                <th>caller</th>
                <th>face</th>
                <th>method</th>
                <th>target</th>
                <th>outcome</th>
                <th>ms</th>
              </tr>
            </thead>
            <tbody>
              {[...entries].reverse().map((e) => (
                <Row key={e.hash} e={e} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function Row({ e }: { e: AuditEntry }) {
  if (e.kind === 'gap') {
    return (
      <tr data-outcome="gap">
        <td>{e.seq}</td>
        <td>{e.time}</td>
        <td colSpan={6}>
          {e.lost} entries lost between {e.from} and {e.to}: {e.reason}
        </td>
      </tr>
    );
  }
  const outcome = e.outcome === 'denied' && e.rule ? `denied by ${e.rule}` : e.outcome;
  return (
    <tr data-outcome={e.outcome} title={e.message}>
      <td>{e.seq}</td>
      <td>{e.time}</td>
      <td>{e.caller}</td>
      <td>
        {e.face}
        {e.client ? ` (${e.client})` : ''}
      </td>
      <td>{e.method}</td>
      <td>
        <code>{e.target ?? ''}</code>
      </td>
      <td>{e.message && e.outcome !== 'ok' ? `${outcome}: ${e.message}` : outcome}</td>
      <td>{e.durationMs}</td>
    </tr>
  );
}
