import { useEffect, useRef, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useOnline, useWatch } from '../hooks.js';
import { ErrorText } from '../error-text.js';
import { SearchList } from '../list.js';
import { ResultView } from '../result-view.js';
import type { DashboardTool } from '../../internal/contract/dashboard/dashboard-events.js';
import type { JsonObject } from '../../internal/shared/json.js';
import type { ProgressUpdate } from '../../internal/contract/model/downstream.js';
import { argsFrom, SchemaForm, useFormValues } from '../schema-form.js';
import { inputRequests, useInputRequests } from '../input-requests.js';
import { InputRequestView } from '../input-request-view.js';
import { appUriOf } from '../app-link.js';
import { LazyAppView } from '../lazy-app-view.js';
import { toolAudience } from '../../internal/contract/model/mcp-apps.js';

type Json = Record<string, unknown>;

let callSeq = 0;

/**
 * Live tool list of a caller (what its MCP client sees, and the MCP Apps' app-only tools, marked: its
 * client's model does not get those), with a try-it form per tool.
 */
export function ToolsTab({ caller }: { caller: string }) {
  const snap = useWatch('tools', { caller });
  const [open, setOpen] = useState<string | undefined>();
  const tools = snap && snap.caller === caller ? snap.tools : undefined;
  // An app's tool calls look their tool up in the listing as it is then, not as it was when it opened.
  const latest = useRef(tools);
  latest.current = tools;
  return (
    <SearchList
      label="tools"
      items={tools}
      text={(t) => `${t.name} ${t.server} ${String(t.definition.description ?? '')}`}
      empty="this caller sees no tools (its profile has no servers, or none could be listed)"
      render={(t) => (
        <li key={t.name} class="item" data-tool={t.name}>
          <div class="item-head">
            <button class="link" aria-expanded={open === t.name} onClick={() => setOpen(open === t.name ? undefined : t.name)}>
              {t.name}
            </button>
            <span class="badge">{t.server}</span>
            {!toolAudience(t.definition).model && (
              <span class="badge" title="an MCP App's own tool: its app calls it; MCP clients' models do not get it">
                app only
              </span>
            )}
            {t.downstreamName !== t.name && <span class="muted">downstream: {t.downstreamName}</span>}
          </div>
          <div class="muted">{String(t.definition.description ?? '')}</div>
          {open === t.name && <ToolDetail caller={caller} tool={t} tools={() => latest.current} />}
        </li>
      )}
    />
  );
}

function ToolDetail({ caller, tool, tools }: { caller: string; tool: DashboardTool; tools: () => readonly DashboardTool[] | undefined }) {
  const schema = tool.definition.inputSchema as Json | undefined;
  const [values, setValues] = useFormValues(schema);
  const online = useOnline();
  const [run, setRun] = useState<{ id: string; args?: JsonObject; progress?: ProgressUpdate; result?: Json; error?: string } | undefined>();
  const app = appUriOf(tool);
  useEffect(() => {
    if (!run || run.result || run.error) return;
    return conn.on('progress', (pe) => {
      if (pe.id === run.id) setRun((r) => (r && r.id === pe.id ? { ...r, progress: pe } : r));
    });
  }, [run?.id, !!run?.result, !!run?.error]);
  const running = run && !run.result && !run.error && run.id !== '';
  const asked = useInputRequests(running ? run.id : undefined);
  // Closing the tool (or leaving the page) gives up its call: nothing would show the result or a
  // question the server asks, so the core cancels it and refuses what the server still asks.
  const live = useRef<string | undefined>();
  live.current = running ? run.id : undefined;
  useEffect(
    () => () => {
      const id = live.current;
      if (id) void conn.ask('cancel', { id }).catch(() => {}); // best effort: the socket may be gone too
    },
    [],
  );
  const submit = (e: Event) => {
    e.preventDefault();
    let args: JsonObject;
    try {
      args = argsFrom(schema, values);
    } catch (err) {
      return setRun({ id: '', error: (err as Error).message });
    }
    const id = `call-${++callSeq}`;
    setRun({ id, args });
    const ended = () => inputRequests.dropCall(id);
    conn.ask('call', { id, caller, name: tool.name, args }).then(
      (result) => (ended(), setRun((r) => (r?.id === id ? { id, args, result } : r))),
      (err: Error) => (ended(), setRun((r) => (r?.id === id ? { id, args, error: err.message } : r))),
    );
  };
  const pct =
    run?.progress && typeof run.progress.total === 'number'
      ? Math.round((100 * Number(run.progress.progress)) / run.progress.total)
      : undefined;
  return (
    <div class="detail">
      {tool.definition.annotations !== undefined && (
        <details>
          <summary>annotations</summary>
          <pre class="text">{JSON.stringify(tool.definition.annotations, null, 2)}</pre>
        </details>
      )}
      <details>
        <summary>input schema</summary>
        <pre class="text">{JSON.stringify(schema ?? {}, null, 2)}</pre>
      </details>
      <form class="try-it" onSubmit={submit} aria-label={`try ${tool.name}`}>
        <h4>Try it</h4>
        <SchemaForm id={`tool-${tool.name}`} schema={schema} values={values} onChange={setValues} />
        <div class="actions">
          <button type="submit" disabled={!!running || !online}>
            Run
          </button>
          {running && (
            <button
              type="button"
              onClick={() =>
                void conn.ask('cancel', { id: run.id }).catch(() => {
                  // Best effort: the run still ends with its own result (cancelled or not) and shows it.
                })
              }
            >
              Cancel
            </button>
          )}
        </div>
      </form>
      {running && (
        <div class="progress" role="status">
          running…
          {run.progress && (
            <>
              <progress max={100} value={pct} /> {String(run.progress.progress)}
              {run.progress.total !== undefined && `/${String(run.progress.total)}`} {String(run.progress.message ?? '')}
            </>
          )}
        </div>
      )}
      {asked.map((req) => (
        <InputRequestView key={req.request} req={req} />
      ))}
      {run?.error && <ErrorText message={run.error} />}
      {app && run?.args && (
        <LazyAppView
          key={run.id}
          caller={caller}
          tool={tool}
          tools={tools}
          args={run.args}
          result={run.result as JsonObject | undefined}
          error={run.error}
        />
      )}
      {run?.result &&
        (app ? (
          <details>
            <summary>result as data</summary>
            <ResultView result={run.result} />
          </details>
        ) : (
          <ResultView result={run.result} />
        ))}
    </div>
  );
}
