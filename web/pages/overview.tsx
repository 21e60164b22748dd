import { useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { SearchList } from '../list.js';
import type { DashboardPushes, OperatorAction } from '../../internal/contract/dashboard/dashboard-events.js';

type StatusEvent = DashboardPushes['status'];

/** Callers → profiles, pools with their instances, store problems, and the operator's actions. */
export function Overview({ status }: { status: StatusEvent | undefined }) {
  const [note, setNote] = useState<{ text: string; error?: boolean } | undefined>();
  const act = (label: string, args: OperatorAction) => {
    setNote({ text: `${label}…` });
    conn.ask('action', args).then(
      () => setNote({ text: `${label}: done` }),
      (e: Error) => setNote({ text: `${label}: ${e.message}`, error: true }),
    );
  };
  const st = status?.status;
  return (
    <div>
      <div class="actions">
        <button onClick={() => act('reload store', { kind: 'reload' })}>Reload store</button>
        {note && (
          <span role="status" class={note.error ? 'error' : 'muted'}>
            {note.text}
          </span>
        )}
      </div>
      {st && st.configIssues.length > 0 && (
        <section class="problems" aria-label="store problems">
          <h3>Store problems (the running configuration is kept)</h3>
          <ul>
            {st.configIssues.map((i) => (
              <li class="error">{i}</li>
            ))}
          </ul>
        </section>
      )}
      <h3>Callers</h3>
      <SearchList
        label="callers"
        items={status?.callers}
        text={(c) => `${c.caller} ${c.profile}`}
        empty="no callers yet: a client running mcpdmcp <caller> appears here"
        render={(c) => (
          <li key={c.caller} class="item">
            <div class="item-head">
              <a href={`#/caller/${encodeURIComponent(c.caller)}/tools`}>{c.caller}</a>
              <span class="muted">→ profile</span> <span class="badge">{c.profile}</span>
              <span class="muted">{c.sessions} session(s)</span>
            </div>
          </li>
        )}
      />
      <h3>Pools</h3>
      <SearchList
        label="pools"
        items={st?.pools}
        text={(p) => `${p.spec.name} ${p.references.join(' ')} ${p.fingerprint}`}
        empty="no server pools: the store has no servers"
        render={(p) => {
          const byState: Record<string, number> = {};
          for (const i of p.instances) byState[i.state] = (byState[i.state] ?? 0) + 1;
          return (
            <li key={p.fingerprint} class="item pool" data-pool={p.spec.name}>
              <div class="item-head">
                <strong>{p.spec.name}</strong>
                <code class="muted">{p.fingerprint.slice(0, 12)}</code>
                <span class="muted">used by {p.references.join(', ')}</span>
                {p.suspended && <span class="badge bad">suspended</span>}
                <span class="muted">
                  {Object.entries(byState)
                    .map(([s, n]) => `${n} ${s}`)
                    .join(', ') || 'no instances (scaled to zero)'}
                  {p.waiting > 0 && `, ${p.waiting} waiting`}
                </span>
                <button onClick={() => act(`stop ${p.spec.name}`, { kind: 'stop-pool', fingerprint: p.fingerprint })}>Stop pool</button>
                {p.suspended && (
                  <button onClick={() => act(`resume ${p.spec.name}`, { kind: 'resume', fingerprint: p.fingerprint })}>Resume</button>
                )}
              </div>
              {p.suspended && <p class="error">suspended: {p.suspendedReason}</p>}
              {p.lastError && <pre class="text error">last error: {p.lastError}</pre>}
              {p.instances.length > 0 && (
                <table>
                  <thead>
                    <tr>
                      <th>instance</th>
                      <th>state</th>
                      <th>pid</th>
                      <th>start cause</th>
                      <th>in flight</th>
                      <th />
                    </tr>
                  </thead>
                  <tbody>
                    {p.instances.map((i) => (
                      <tr key={i.id}>
                        <td>{i.id}</td>
                        <td>{i.state}</td>
                        <td>{i.pid ?? '-'}</td>
                        <td>{i.startCause}</td>
                        <td data-inflight>{i.inFlight}</td>
                        <td>
                          <button onClick={() => act(`restart ${i.id}`, { kind: 'restart', fingerprint: p.fingerprint, instance: i.id })}>
                            Restart
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          );
        }}
      />
    </div>
  );
}
