import { useEffect, useState } from 'preact/hooks';
import { conn } from '../conn.js';
import { useWatch } from '../hooks.js';
import { SearchList } from '../list.js';

interface DesktopView {
  etag: string;
  windows: string[];
  warnings: string[];
}

/** The caller's organized windows (window:// resources), refreshed whenever the core says they changed. */
export function Desktop({ caller }: { caller: string }) {
  const change = useWatch<{ etag: string }>('desktop', 'desktop-changed', { caller });
  const [view, setView] = useState<{ v?: DesktopView; error?: string }>({});
  useEffect(() => {
    conn.ask<DesktopView>('desktop', { caller }).then(
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
        render={(w) => (
          <li key={w} class="item window">
            <code>{w}</code>
          </li>
        )}
      />
    </div>
  );
}
