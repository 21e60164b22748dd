import { useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useOnline } from '../hooks.js';
import type { OperatorAction } from '../../internal/contract/dashboard/dashboard-events.js';
import type { PoolStatus } from '../../internal/contract/model/runtime.js';
import { describeSandbox } from '../../internal/contract/model/sandbox.js';

type Note = { text: string; error?: boolean };

const COLUMNS = ['instance', 'state', 'pid', 'start cause', 'in flight', 'action'];
type Pending = { label: string; action: OperatorAction };

/**
 * One pool: its instances and the operator's actions, each confirmed first and reported here, at the
 * row it acted on. `twins` is set when other pools run a server of the same name: then the row says
 * what sets this one apart (its arguments, its environment's keys).
 */
export function PoolRow({ p, twins }: { p: PoolStatus; twins: boolean }) {
  const [note, setNote] = useState<Note | undefined>();
  const [confirm, setConfirm] = useState<Pending | undefined>();
  const online = useOnline();
  const run = ({ label, action }: Pending) => {
    setConfirm(undefined);
    setNote({ text: `${label}…` });
    conn.ask('action', action).then(
      () => setNote({ text: `${label}: done` }),
      (e: Error) => setNote({ text: `${label}: ${e.message}`, error: true }),
    );
  };
  const byState: Record<string, number> = {};
  for (const i of p.instances) byState[i.state] = (byState[i.state] ?? 0) + 1;
  const live = p.instances.filter((i) => i.state !== 'stopped');
  return (
    <li key={p.fingerprint} class="item pool" data-pool={p.spec.name}>
      <div class="item-head">
        <strong>{p.spec.name}</strong>
        <code class="muted" title={p.fingerprint}>
          {p.fingerprint.slice(0, 12)}
        </code>
        <span class="muted">used by {p.references.join(', ')}</span>
        {p.suspended && <span class="badge bad">suspended</span>}
        <span class="muted">
          {Object.entries(byState)
            .map(([s, n]) => `${n} ${s}`)
            .join(', ') || 'no instances (scaled to zero)'}
          {p.waiting > 0 && `, ${p.waiting} waiting`}
        </span>
        {live.length > 0 && (
          <button
            disabled={!online}
            onClick={() => setConfirm({ label: `stop ${p.spec.name}`, action: { kind: 'stop-pool', fingerprint: p.fingerprint } })}
          >
            Stop pool
          </button>
        )}
        {p.suspended && (
          <button
            disabled={!online}
            onClick={() => run({ label: `resume ${p.spec.name}`, action: { kind: 'resume', fingerprint: p.fingerprint } })}
          >
            Resume
          </button>
        )}
      </div>
      {twins && <Differs p={p} />}
      {p.spec.sandbox && (
        <p class="muted sandbox">
          sandbox: <code>{describeSandbox(p.spec.sandbox)}</code>
        </p>
      )}
      {p.spec.sandboxOptOut && (
        <p class="muted sandbox">
          unsandboxed: <code>sandbox: false</code>
        </p>
      )}
      {confirm && (
        <div class="actions confirm" role="group" aria-label={`confirm ${confirm.label}`}>
          <span>
            {confirm.action.kind === 'stop-pool'
              ? `Stop every instance of ${p.spec.name}? ${drainNote(p.spec.drainTimeoutSeconds)}`
              : `Restart ${confirm.label.slice('restart '.length)}? ${drainNote(p.spec.drainTimeoutSeconds)}`}
          </span>
          <button onClick={() => run(confirm)}>Confirm</button>
          <button onClick={() => setConfirm(undefined)}>Cancel</button>
        </div>
      )}
      {note && (
        <p role="status" class={note.error ? 'error' : 'muted'}>
          {note.text}
        </p>
      )}
      {p.suspended && <p class="error">suspended: {p.suspendedReason}</p>}
      {p.lastError && <pre class="text error">last error: {p.lastError}</pre>}
      {p.instances.length > 0 && (
        <div class="table-scroll">
          {/* Explicit roles: on a phone the rows are laid out as blocks (app.css), which would drop the table's semantics. */}
          <table class="instances" role="table" aria-label={`instances of ${p.spec.name}`}>
            <thead role="rowgroup">
              <tr role="row">
                {COLUMNS.map((c) => (
                  <th role="columnheader" key={c}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody role="rowgroup">
              {p.instances.map((i) => (
                <tr role="row" key={i.id}>
                  <td role="cell" data-label="instance">
                    {i.id}
                  </td>
                  <td role="cell" data-label="state">
                    {i.state}
                  </td>
                  <td role="cell" data-label="pid">
                    {i.pid ?? '-'}
                  </td>
                  <td role="cell" data-label="start cause">
                    {i.startCause}
                  </td>
                  <td role="cell" data-label="in flight" data-inflight>
                    {i.inFlight}
                  </td>
                  <td role="cell" data-label="action">
                    {/* A draining or stopped instance is already on its way out. */}
                    <button
                      disabled={!online || i.state === 'draining' || i.state === 'stopped'}
                      onClick={() =>
                        setConfirm({ label: `restart ${i.id}`, action: { kind: 'restart', fingerprint: p.fingerprint, instance: i.id } })
                      }
                    >
                      Restart
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}

/** What tells this pool from others of the same server name. */
function Differs({ p }: { p: PoolStatus }) {
  const args = p.spec.url ?? p.spec.cmd.slice(1).join(' ');
  const env = Object.keys(p.spec.env).sort();
  return (
    <p class="muted differs">
      args: <code>{args || '(none)'}</code> · env keys: {env.length > 0 ? <code>{env.join(', ')}</code> : '(none)'}
    </p>
  );
}

/** What an operator stop does to calls in flight (instance-lifecycle.ts: 'operator' is a graceful stop). */
function drainNote(seconds: number): string {
  return `Calls in flight get up to ${seconds} s (drainTimeoutSeconds) to finish while it drains; any still running then fails with "stopped during the call".`;
}
