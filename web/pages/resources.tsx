import { useEffect, useRef, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useOnline, useWatch } from '../hooks.js';
import { ErrorText } from '../error-text.js';
import { SearchList } from '../list.js';
import { ContentsView } from '../result-view.js';
import { TemplateForm } from './template-form.js';

type Json = Record<string, unknown>;

/** Resources and templates of a caller: read, subscribe and see updates arrive. */
export function ResourcesTab({ caller }: { caller: string }) {
  const snap = useWatch('resources', { caller });
  const [open, setOpen] = useState<string | undefined>();
  const [uri, setUri] = useState('');
  // The template whose form is open at its row, and the URI read from it there.
  const [tpl, setTpl] = useState<{ template: string; uri?: string } | undefined>();
  const online = useOnline();
  const ok = snap && snap.caller === caller;
  return (
    <div>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setOpen(uri);
        }}
      >
        <label for="read-uri">Read a URI</label>
        <input
          id="read-uri"
          value={uri}
          class="uri-input"
          placeholder="scheme://path"
          onInput={(e) => setUri((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={!online}>
          Read
        </button>
      </form>
      {/* A listed resource opens at its row (where the eyes are); any other URI here. */}
      {open && !(ok && snap.resources.some((r) => r.uri === open)) && <ResourceDetail key={open} caller={caller} uri={open} />}
      <h3>Resources</h3>
      <SearchList
        label="resources"
        items={ok ? snap.resources : undefined}
        text={(r) => `${r.uri} ${String(r.definition.name ?? '')} ${r.server}`}
        empty="no resources for this caller"
        render={(r) => (
          <li key={r.uri} class="item">
            <div class="item-head">
              <button class="link" onClick={() => setOpen(r.uri)}>
                {String(r.definition.name ?? r.uri)}
              </button>
              <span class="badge">{r.server}</span>
              <code class="muted">{r.uri}</code>
            </div>
            {open === r.uri && <ResourceDetail key={open} caller={caller} uri={open} />}
          </li>
        )}
      />
      <h3>Templates</h3>
      <SearchList
        label="templates"
        items={ok ? snap.templates : undefined}
        text={(t) => `${t.uriTemplate} ${String(t.definition.name ?? '')}`}
        empty="no resource templates"
        render={(t) => (
          <li key={t.uriTemplate} class="item">
            <div class="item-head">
              <button
                class="link"
                aria-expanded={tpl?.template === t.uriTemplate}
                onClick={() => setTpl(tpl?.template === t.uriTemplate ? undefined : { template: t.uriTemplate })}
              >
                {String(t.definition.name ?? t.uriTemplate)}
              </button>
              <span class="badge">{t.server}</span>
              <code class="muted">{t.uriTemplate}</code>
            </div>
            {tpl?.template === t.uriTemplate && (
              <>
                <TemplateForm uriTemplate={t.uriTemplate} onRead={(u) => setTpl({ template: t.uriTemplate, uri: u })} />
                {tpl.uri !== undefined && <ResourceDetail key={tpl.uri} caller={caller} uri={tpl.uri} />}
              </>
            )}
          </li>
        )}
      />
    </div>
  );
}

function ResourceDetail({ caller, uri }: { caller: string; uri: string }) {
  const [res, setRes] = useState<{ contents?: Json[]; error?: string }>({});
  const [subscribed, setSubscribed] = useState(false);
  const [active, setActive] = useState(false);
  const [updates, setUpdates] = useState(0);
  // Opened from far down the list: bring the content into view (and focus, for the keyboard).
  const here = useRef<HTMLElement>(null);
  useEffect(() => {
    here.current?.scrollIntoView({ block: 'nearest' });
    here.current?.focus({ preventScroll: true });
  }, [uri]);
  const read = () =>
    conn.ask('read', { caller, uri }).then(
      (r) => setRes({ contents: (r.contents as Json[]) ?? [] }),
      (e: Error) => setRes({ error: e.message }),
    );
  // read() shows a failure on the page (its second handler): it does not reject.
  useEffect(() => void read(), [caller, uri]);
  useEffect(() => {
    if (!subscribed) return;
    const off = conn.on('updated', (v) => {
      if (v.uri !== uri) return;
      setUpdates((n) => n + 1);
      // Likewise: read() does not reject.
      void read();
    });
    conn.ask('subscribe', { caller, uri }).then(
      () => setActive(true),
      (e: Error) => setRes({ error: e.message }),
    );
    return () => {
      off();
      setActive(false);
      // Ignored: the page is leaving: an unsubscribe that fails ends with the socket anyway.
      void conn.ask('unsubscribe', { uri }).catch(() => {});
    };
  }, [subscribed, caller, uri]);
  return (
    <section class="detail" aria-label={`resource ${uri}`} ref={here} tabIndex={-1}>
      <div class="item-head">
        <code>{uri}</code>
        {/* read() shows its own failure: nothing to await */}
        <button onClick={() => void read()}>Read again</button>
        <button aria-pressed={subscribed} onClick={() => setSubscribed(!subscribed)}>
          {subscribed ? 'Unsubscribe' : 'Subscribe'}
        </button>
        {active && <span class="badge">subscribed · {updates} updates</span>}
      </div>
      {res.error && <ErrorText message={res.error} />}
      {res.contents && <ContentsView contents={res.contents} />}
    </section>
  );
}
