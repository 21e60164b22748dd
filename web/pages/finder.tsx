import { useEffect, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useWatch } from '../hooks.js';
import { SearchList } from '../list.js';
import { renderMarkdown } from '../markdown.js';

type Json = Record<string, unknown>;

/** Documents fetched per request (the core pages the catalogue by offset/limit). */
const PAGE_SIZE = 100;

/** Search the caller's dpe:// documents, then drill down document → pages → elements. */
export function Finder({ caller }: { caller: string }) {
  const change = useWatch('finder', { caller });
  const [keywords, setKeywords] = useState('');
  const [fileType, setFileType] = useState('');
  const [query, setQuery] = useState({ keywords: '', fileType: '' });
  const [res, setRes] = useState<{ docs?: Json[]; total?: number; error?: string }>({});
  const [open, setOpen] = useState<string | undefined>();
  const fetchPage = (offset: number) =>
    conn.ask('finder', { caller, ...query, offset, limit: PAGE_SIZE }).then(
      (v) => setRes((r) => ({ docs: offset === 0 ? v.documents : [...(r.docs ?? []), ...v.documents], total: v.totalCount })),
      (e: Error) => setRes({ error: e.message }),
    );
  // fetchPage() shows a failure on the page (its second handler): it does not reject.
  useEffect(() => void fetchPage(0), [caller, query, change?.etag]);
  return (
    <div>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ keywords, fileType });
        }}
      >
        <label for="finder-keywords">Keywords</label>
        <input id="finder-keywords" value={keywords} onInput={(e) => setKeywords((e.target as HTMLInputElement).value)} />
        <label for="finder-type">Type</label>
        <input
          id="finder-type"
          placeholder="md, pdf, csv…"
          value={fileType}
          onInput={(e) => setFileType((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
        {res.total !== undefined && <span class="muted">{res.total === 1 ? '1 document' : `${res.total} documents`}</span>}
        {res.docs && res.total !== undefined && res.docs.length < res.total && (
          <button type="button" onClick={() => void fetchPage(res.docs?.length ?? 0) /* shows its own failure */}>
            Load {Math.min(PAGE_SIZE, res.total - res.docs.length)} more
          </button>
        )}
      </form>
      {open && <DocumentView key={open} caller={caller} uri={open} onClose={() => setOpen(undefined)} />}
      <SearchList
        label="documents"
        items={res.docs}
        error={res.error}
        text={(d) => `${String(d.title)} ${String(d.doc_ref)}`}
        empty="no documents: no dpe:// server for this caller, or nothing matches"
        render={(d) => (
          <li key={String(d.uri)} class="item">
            <div class="item-head">
              <button class="link" onClick={() => setOpen(String(d.uri))}>
                {String(d.title ?? d.doc_ref)}
              </button>
              <span class="badge">{String(d.file_type ?? '')}</span>
              <code class="muted">{String(d.uri)}</code>
            </div>
            {typeof d.summary === 'string' && <div class="muted">{d.summary}</div>}
          </li>
        )}
      />
    </div>
  );
}

function readJson(caller: string, uri: string): Promise<Json> {
  return conn.ask('read', { caller, uri }).then((r) => {
    const c = ((r.contents as Json[]) ?? [])[0];
    return JSON.parse(String(c?.text ?? '{}')) as Json;
  });
}

function withQuery(uri: string, q: string): string {
  return `${uri}${uri.includes('?') ? '&' : '?'}${q}`;
}

function DocumentView({ caller, uri, onClose }: { caller: string; uri: string; onClose: () => void }) {
  const [doc, setDoc] = useState<{ v?: Json; error?: string }>({});
  const [page, setPage] = useState<string | undefined>();
  useEffect(() => {
    readJson(caller, withQuery(uri, 'depth=pages&limit=100')).then(
      (v) => setDoc({ v }),
      (e: Error) => setDoc({ error: e.message }),
    );
  }, [caller, uri]);
  const pages = (doc.v?.pages as Json[] | undefined) ?? [];
  return (
    <section class="detail" aria-label={`document ${uri}`}>
      <div class="item-head">
        <strong>{String(doc.v?.title ?? uri)}</strong>
        <button onClick={onClose}>Close document</button>
      </div>
      {doc.error && <p class="error">{doc.error}</p>}
      <ol class="pages">
        {pages.map((p) => (
          <li>
            <button class="link" onClick={() => setPage(String(p.uri ?? `${uri}/pages/${String(p.page_index)}`))}>
              {String(p.title ?? `page ${String(p.page_index)}`)}
            </button>{' '}
            <span class="muted">{String(p.element_count ?? '')} elements</span>
          </li>
        ))}
      </ol>
      {page && <PageView key={page} caller={caller} uri={page} />}
    </section>
  );
}

function PageView({ caller, uri }: { caller: string; uri: string }) {
  const [md, setMd] = useState<string | undefined>();
  const [els, setEls] = useState<Json[]>([]);
  const [el, setEl] = useState<Json | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    conn.ask('read', { caller, uri: withQuery(uri, 'format=markdown') }).then(
      (r) => setMd(String(((r.contents as Json[]) ?? [])[0]?.text ?? '')),
      (e: Error) => setError(e.message),
    );
    readJson(caller, uri).then(
      (v) => setEls((v.elements as Json[]) ?? []),
      (e: Error) => setError(e.message),
    );
  }, [caller, uri]);
  return (
    <div class="page-view">
      {error && <p class="error">{error}</p>}
      {md !== undefined && <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(md) }} />}
      <h4>Elements</h4>
      <ul>
        {els.map((e) => (
          <li>
            <button
              class="link"
              onClick={() =>
                readJson(
                  caller,
                  String(e.uri ?? `${uri.replace(/\/pages\/\d+.*$/, '')}/elements/${encodeURIComponent(String(e.element_id))}`),
                ).then(setEl, (x: Error) => setError(x.message))
              }
            >
              {String(e.element_id)}
            </button>{' '}
            <span class="badge">{String(e.category)}</span> <span class="muted">{String(e.summary ?? '').slice(0, 80)}</span>
          </li>
        ))}
      </ul>
      {el && <pre class="text">{JSON.stringify(el, null, 2)}</pre>}
    </div>
  );
}
