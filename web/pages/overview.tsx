import { useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { SearchList } from '../list.js';
import { PoolRow } from './pool-row.js';
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
  // By server name (then fingerprint), as a person looks for them; pools of one name say how they differ.
  const pools = st && [...st.pools].sort((a, b) => a.spec.name.localeCompare(b.spec.name) || a.fingerprint.localeCompare(b.fingerprint));
  const names = new Map<string, number>();
  for (const p of pools ?? []) names.set(p.spec.name, (names.get(p.spec.name) ?? 0) + 1);
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
        items={pools}
        text={(p) => `${p.spec.name} ${p.references.join(' ')} ${p.fingerprint}`}
        empty="no server pools: the store has no servers"
        render={(p) => <PoolRow p={p} twins={(names.get(p.spec.name) ?? 0) > 1} />}
      />
    </div>
  );
}
