import { useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useOnline, useWatch } from '../hooks.js';
import type { OperatorAction, ServerPinsView } from '../../internal/contract/dashboard/dashboard-events.js';

type Note = { text: string; error?: boolean };

/**
 * Tool pins: every server's tools are pinned on first sight; a tool whose definition changed since it
 * was approved (or a pinned tool renamed) is withheld from every caller until approved. Each withheld
 * tool shows its diff and an Approve button — the same as `mcpdctl pins approve SERVER TOOL`, after
 * which connected clients get list_changed.
 */
export function Pins() {
  const view = useWatch('pins', {});
  // Page-wide: an approved server leaves the list of withheld ones, its note must not leave with it.
  const [note, setNote] = useState<Note | undefined>();
  const approve = (label: string, action: OperatorAction) => {
    setNote({ text: `${label}…` });
    conn.ask('action', action).then(
      () => setNote({ text: `${label}: approved` }),
      (e: Error) => setNote({ text: `${label}: ${e.message}`, error: true }),
    );
  };
  const servers = view?.servers;
  const withheld = servers?.filter((s) => s.withheld.length > 0) ?? [];
  return (
    <div>
      {note && (
        <p role="status" class={note.error ? 'error' : 'muted'}>
          {note.text}
        </p>
      )}
      <h3>Withheld tools, prompts and resources</h3>
      {servers === undefined ? (
        <p class="muted">loading…</p>
      ) : withheld.length === 0 ? (
        <p class="muted" data-pins="none">
          nothing is withheld: every tool, prompt and resource served is the one approved
        </p>
      ) : (
        <ul class="list">
          {withheld.map((s) => (
            <ServerPins key={s.server} s={s} approve={approve} />
          ))}
        </ul>
      )}
      <h3>Pinned servers</h3>
      <ul class="list">
        {(servers ?? []).map((s) => (
          <li key={s.server} class="item" data-pinned={s.server}>
            <strong>{s.server}</strong> <span class="muted">{s.pinned} tools pinned</span>
            {s.withheld.length > 0 && <span class="badge bad">{s.withheld.length} withheld</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ServerPins({ s, approve }: { s: ServerPinsView; approve: (label: string, action: OperatorAction) => void }) {
  const online = useOnline();
  return (
    <li class="item" data-withheld-server={s.server}>
      <div class="item-head">
        <strong>{s.server}</strong>
        <span class="muted">
          {s.pinned} pinned, {s.withheld.length} withheld
        </span>
        {s.withheld.length > 1 && (
          <button disabled={!online} onClick={() => approve(`approve all of ${s.server}`, { kind: 'approve-pins', server: s.server })}>
            Approve all
          </button>
        )}
      </div>
      {s.withheld.map((w) => (
        <div key={w.name} class="pin" data-tool={w.name}>
          <pre class="diff" aria-label={`change of ${w.name}`}>
            {w.diff.map((line) => (
              <div class={line.startsWith('+ ') ? 'added' : line.startsWith('- ') ? 'removed' : 'muted'}>{line}</div>
            ))}
          </pre>
          <button disabled={!online} onClick={() => approve(`approve ${w.name}`, { kind: 'approve-pins', server: s.server, tool: w.name })}>
            Approve {w.name}
          </button>
        </div>
      ))}
    </li>
  );
}
