import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

const PAGE = 50;

interface Props<T> {
  label: string;
  items: readonly T[] | undefined;
  error?: string;
  /** The text the search box matches against. */
  text: (item: T) => string;
  render: (item: T) => ComponentChildren;
  empty: string;
}

/** A searchable, paged list with loading, empty and error states. */
export function SearchList<T>(p: Props<T>) {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(0);
  if (p.error)
    return (
      <p class="error" role="alert">
        {p.error}
      </p>
    );
  if (!p.items) return <p class="muted">loading…</p>;
  const needle = q.trim().toLowerCase();
  const shown = needle ? p.items.filter((i) => p.text(i).toLowerCase().includes(needle)) : p.items;
  const pages = Math.max(1, Math.ceil(shown.length / PAGE));
  const at = Math.min(page, pages - 1);
  return (
    <div class="list">
      <div class="list-bar">
        <input
          type="search"
          aria-label={`search ${p.label}`}
          placeholder={`search ${p.label}…`}
          value={q}
          onInput={(e) => {
            setQ((e.target as HTMLInputElement).value);
            setPage(0);
          }}
        />
        <span class="muted">
          {shown.length} of {p.items.length}
        </span>
        {pages > 1 && (
          <span class="pager">
            <button disabled={at === 0} onClick={() => setPage(at - 1)}>
              ‹ prev
            </button>
            <span>
              page {at + 1}/{pages}
            </span>
            <button disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>
              next ›
            </button>
          </span>
        )}
      </div>
      {shown.length === 0 ? (
        <p class="empty">{p.items.length === 0 ? p.empty : `nothing matches "${q}"`}</p>
      ) : (
        <ul>{shown.slice(at * PAGE, (at + 1) * PAGE).map((i) => p.render(i))}</ul>
      )}
    </div>
  );
}
