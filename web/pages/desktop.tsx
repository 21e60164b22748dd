import { useEffect, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useWatch } from '../hooks.js';
import { SearchList } from '../list.js';
import type { DesktopView } from '../../internal/contract/control/control-areas.js';

/** The caller's organized windows (window:// resources), refreshed whenever the core says they changed. */
export function Desktop({ caller }: { caller: string }) {
  const change = useWatch('desktop', { caller });
  const [view, setView] = useState<{ v?: DesktopView; error?: string }>({});
  useEffect(() => {
    conn.ask('desktop', { caller }).then(
      (v) => setView({ v }),
      (e: Error) => setView({ error: e.message }),
    );
  }, [caller, change?.etag]);
  return (
    <div>
      {view.v?.warnings.map((w) => (
        <p class="error">{w}</p>
      ))}
      <SearchList
        label="windows"
        items={view.v?.windows}
        error={view.error}
        text={(w) => w}
        empty="no windows: none of this caller's servers exposes window:// resources"
        render={(w) => {
          // Each window is its URI, a blank line, then its content.
          const [uri, ...rest] = w.split('\n');
          return (
            <li key={uri} class="item window" data-window={uri}>
              <code>{uri}</code>
              <pre class="text">{rest.join('\n').replace(/^\n/, '')}</pre>
            </li>
          );
        }}
      />
    </div>
  );
}
