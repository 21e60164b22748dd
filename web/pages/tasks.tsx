import { useEffect, useState } from 'preact/hooks';
import type { CallerRow, TaskRow } from '../../internal/contract/dashboard/dashboard-events.js';
import type { TaskView } from '../../internal/contract/model/tasks.js';
import { CallerFilter } from '../caller-filter.js';
import { conn } from '../conn.js';
import { ErrorText } from '../error-text.js';
import { useOnline, useWatch } from '../hooks.js';
import { ElicitationForm } from '../input-request-view.js';
import type { JsonObject } from '../../internal/shared/json.js';
import { ResultView } from '../result-view.js';

/** Statuses a task leaves no more: no Cancel for them. */
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/**
 * The tasks the core hosts (docs/eras.md, "Tasks"), every caller's or one's, live: the core pushes the list
 * after each change. A row opens the task in full; Cancel is `tasks/cancel` as its caller would send it.
 */
export function Tasks({ callers, initialCaller }: { callers: CallerRow[]; initialCaller?: string }) {
  const [caller, setCaller] = useState(initialCaller ?? '');
  const [open, setOpen] = useState<{ caller: string; taskId: string } | undefined>();
  const [watchError, setWatchError] = useState<string | undefined>();
  const pushed = useWatch('tasks', caller ? { caller } : {});
  // A list still in flight from the previous choice is not this one's.
  const rows = pushed && (pushed.caller ?? '') === caller ? pushed.tasks : undefined;
  useEffect(
    () =>
      conn.on('watch-error', (e) => {
        if (e.kind === 'tasks') setWatchError(e.error);
      }),
    [],
  );
  useEffect(() => setWatchError(undefined), [rows]);
  // A caller that holds tasks is offered even when callers.yaml does not name it and it is not attached.
  const names = [...new Set([...callers.map((c) => c.caller), ...(rows ?? []).map((r) => r.caller), ...(caller ? [caller] : [])])].sort();
  const opened = open && rows?.find((r) => r.caller === open.caller && r.taskId === open.taskId);
  return (
    <div class="tasks">
      <div class="list-bar">
        <CallerFilter label="tasks caller" value={caller} names={names} onChange={setCaller} />
        {rows && <span class="muted">{rows.length} tasks</span>}
      </div>
      {watchError ? (
        <ErrorText message={`the tasks could not be watched: ${watchError}`} />
      ) : !rows ? (
        <p class="muted">loading…</p>
      ) : rows.length === 0 ? (
        <p class="empty">
          no tasks{caller ? ` of ${caller}` : ''}: a task starts when a client that negotiated the tasks extension calls a tool that
          supports tasks; an ended task is kept for its ttl
        </p>
      ) : (
        <div class="table-scroll">
          <table aria-label="tasks">
            <thead>
              <tr>
                <th>task</th>
                <th>caller</th>
                <th>server / tool</th>
                <th>status</th>
                <th>message</th>
                <th>created</th>
                <th>updated</th>
                <th>ttl</th>
                <th>action</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <Row
                  key={`${r.caller}/${r.taskId}`}
                  r={r}
                  open={r === opened}
                  onToggle={() => setOpen(r === opened ? undefined : { caller: r.caller, taskId: r.taskId })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {opened && <TaskDetail row={opened} onClose={() => setOpen(undefined)} />}
    </div>
  );
}

function Row({ r, open, onToggle }: { r: TaskRow; open: boolean; onToggle: () => void }) {
  return (
    <tr data-status={r.status}>
      <td>
        <button class="link" aria-expanded={open} title={r.taskId} onClick={onToggle}>
          <code>{r.taskId.slice(0, 8)}</code>
        </button>
      </td>
      <td>{r.caller}</td>
      <td>
        {r.server ? `${r.server} / ` : ''}
        <code>{r.tool || '?'}</code>
      </td>
      <td>
        <span class={r.status === 'failed' ? 'badge bad' : 'badge'}>{r.status.replace('_', ' ')}</span>
        {r.inputs > 0 && <span class="muted"> ({r.inputs} waiting)</span>}
      </td>
      <td class="task-message">{r.statusMessage ?? ''}</td>
      <td>
        <Time iso={r.createdAt} />
      </td>
      <td>
        <Time iso={r.lastUpdatedAt} />
      </td>
      <td>{duration(r.ttlMs)}</td>
      <td>{!ENDED.has(r.status) && <CancelButton r={r} />}</td>
    </tr>
  );
}

/** Cancels the task through the core; a refusal (the core went away, the task is gone) shows at its row. */
function CancelButton({ r }: { r: TaskRow }) {
  const online = useOnline();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const cancel = () => {
    setBusy(true);
    setError(undefined);
    conn.ask('cancel-task', { caller: r.caller, taskId: r.taskId }).then(
      () => setBusy(false),
      (e: Error) => {
        setBusy(false);
        setError(e.message);
      },
    );
  };
  return (
    <>
      <button type="button" disabled={busy || !online} aria-label={`Cancel task ${r.taskId.slice(0, 8)}`} onClick={cancel}>
        Cancel
      </button>
      {error && <ErrorText message={error} />}
    </>
  );
}

/** The task in full, asked again whenever its row says it changed. */
function TaskDetail({ row, onClose }: { row: TaskRow; onClose: () => void }) {
  const [task, setTask] = useState<TaskView | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    conn.ask('task', { caller: row.caller, taskId: row.taskId }).then(
      (t) => {
        if (!live) return;
        setTask(t);
        setError(undefined);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [row.caller, row.taskId, row.lastUpdatedAt]);
  return (
    <section class="detail task-detail" aria-label="task details">
      <div class="item-head">
        <strong>
          task <code>{row.taskId}</code>
        </strong>
        <span class="muted">{row.caller}</span>
        <span class="badge">{row.status.replace('_', ' ')}</span>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {error ? (
        <ErrorText message={error} />
      ) : !task || task.taskId !== row.taskId ? (
        <p class="muted">loading…</p>
      ) : (
        <TaskBody task={task} caller={row.caller} />
      )}
    </section>
  );
}

function TaskBody({ task, caller }: { task: TaskView; caller: string }) {
  const inputs = Object.entries(task.inputRequests ?? {});
  return (
    <>
      <p class="muted">
        created {task.createdAt}, updated {task.lastUpdatedAt}; kept {duration(task.ttlMs)} after it ends
        {task.statusMessage ? `; ${task.statusMessage}` : ''}
      </p>
      {task.result && <ResultView result={task.result} />}
      {task.error && <ErrorText message={`error ${task.error.code}: ${task.error.message}`} />}
      {inputs.length > 0 && (
        <div class="task-inputs">
          <p>
            Waiting for its caller's answer ({inputs.length}): the client that created the task answers with <code>tasks/update</code>, and
            so can this page, as that caller, an elicitation:
          </p>
          {inputs.map(([key, req]) => (
            <details key={key} open>
              <summary>
                <code>{key}</code> {String(req.method ?? '')}
              </summary>
              <pre class="text">{JSON.stringify(req.params ?? req, null, 2)}</pre>
              {req.method === 'elicitation/create' && <TaskInput caller={caller} taskId={task.taskId} inputKey={key} params={req.params} />}
            </details>
          ))}
        </div>
      )}
      {!task.result && !task.error && inputs.length === 0 && (
        <p class="empty">{ENDED.has(task.status) ? 'it ended with no result' : 'no result yet: the task runs'}</p>
      )}
    </>
  );
}

/**
 * The form of one elicitation a task waits on, answered as the task's caller (`answer-task`, i.e.
 * `tasks/update`); once taken, the task moves on and its detail, asked again, no longer holds it.
 */
function TaskInput({ caller, taskId, inputKey, params }: { caller: string; taskId: string; inputKey: string; params: unknown }) {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const req = { request: `task-${taskId}-${inputKey}`, params: (params ?? {}) as JsonObject };
  const send = (answer: { action: 'accept' | 'decline' | 'cancel'; content?: JsonObject }) => {
    setSending(true);
    setError(undefined);
    conn.ask('answer-task', { caller, taskId, key: inputKey, ...answer }).catch((e: Error) => {
      setSending(false);
      setError(e.message);
    });
  };
  return (
    <section class="input-request" aria-label={`answer ${inputKey}`} data-input-request="elicitation/create">
      <ElicitationForm req={req} sending={sending} send={send} />
      {error && <ErrorText message={error} />}
    </section>
  );
}

/** A time of day, its full date and time on hover; a bad or absent time reads "?". */
function Time({ iso }: { iso: string }) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>?</span>;
  return (
    <time dateTime={iso} title={iso}>
      {d.toLocaleTimeString()}
    </time>
  );
}

/** 3600000 → "1 h", 90000 → "1.5 min". */
function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms >= 3_600_000) return `${+(ms / 3_600_000).toFixed(1)} h`;
  if (ms >= 60_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 1000).toFixed(1)} s`;
}
