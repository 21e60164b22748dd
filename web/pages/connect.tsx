import { useState } from 'preact/hooks';
import { useAsk } from '../hooks.js';
import { clientSnippets } from './connect-snippets.js';

/** Ready-to-paste client configurations for a caller, with copy buttons: every client docs/clients.md covers. */
export function Connect({ caller }: { caller: string }) {
  const info = useAsk('connect-info', {});
  const [copied, setCopied] = useState('');
  if (info.error) return <p class="error">{info.error}</p>;
  const i = info.value;
  if (!i) return <p class="muted">loading…</p>;
  const copy = (title: string, text: string) => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(title),
      () => setCopied(`${title}: the browser refused the clipboard; select the text instead`),
    );
  };
  return (
    <div>
      <p class="muted">
        For caller <strong>{caller}</strong> (core socket {i.socket}). <code>mcpdctl connect CLIENT --caller {caller}</code> writes the
        entry into the client's own file for you, and sets the caller's name budget.
      </p>
      {clientSnippets(i, caller).map((s) => (
        <section class="snippet" aria-label={s.title}>
          <div class="item-head">
            <h2 class="snippet-title">{s.title}</h2>
            <button onClick={() => copy(s.title, s.text)}>Copy</button>
            {copied.startsWith(s.title) && <span role="status">{copied === s.title ? 'copied' : copied}</span>}
          </div>
          {s.names && <p class="muted">{s.names}</p>}
          <pre class="code">{s.text}</pre>
        </section>
      ))}
    </div>
  );
}
