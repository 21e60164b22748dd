import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { conn } from './conn.js';
import { useConnState, useWatch } from './hooks.js';
import { Audit } from './pages/audit.js';
import { Config } from './pages/config.js';
import { Connect } from './pages/connect.js';
import { Desktop } from './pages/desktop.js';
import { Finder } from './pages/finder.js';
import { Logs } from './pages/logs.js';
import { Overview } from './pages/overview.js';
import { Pins } from './pages/pins.js';
import { PromptsTab } from './pages/prompts.js';
import { ResourcesTab } from './pages/resources.js';
import { Tasks } from './pages/tasks.js';
import { ToolsTab } from './pages/tools.js';

/** #/page[/caller[/tab]] */
function useRoute(): string[] {
  const parse = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent).filter(Boolean);
  const [r, setR] = useState(parse);
  useEffect(() => {
    const on = () => setR(parse());
    addEventListener('hashchange', on);
    on(); // a hash set between the first render and this effect (effects run after paint) is not missed
    return () => removeEventListener('hashchange', on);
  }, []);
  return r;
}

const PAGES: [string, string][] = [
  ['overview', 'Overview'],
  ['caller', 'Caller'],
  ['logs', 'Logs'],
  ['audit', 'Audit'],
  ['tasks', 'Tasks'],
  ['desktop', 'Desktop'],
  ['finder', 'Finder'],
  ['pins', 'Pins'],
  ['config', 'Config'],
  ['connect', 'Connect'],
];
const PER_CALLER = new Set(['caller', 'desktop', 'finder', 'connect']);

function Banner() {
  const s = useConnState();
  if (s === 'online') return null;
  const text = {
    connecting: 'connecting to the core…',
    stopping: 'the core is stopping: calls in flight finish; this page reconnects to the next core by itself',
    reconnecting: 'the core is not reachable: reconnecting…',
    stopped: 'the core stopped: this page reconnects to the next core by itself',
    'locked-out': 'this page has no valid login for the running core: open it again with "mcpd open"',
    'logged-out': 'logged out: open the dashboard again with "mcpd open"',
  }[s];
  return (
    <div class={`banner banner-${s}`} role="status" data-conn={s}>
      {text}
    </div>
  );
}

function Dashboard() {
  const [page = 'overview', routeCaller, tab = 'tools'] = useRoute();
  const status = useWatch('status', {});
  const callers = status?.callers ?? [];
  const [picked, setPicked] = useState<string | undefined>(routeCaller);
  useEffect(() => {
    if (routeCaller) setPicked(routeCaller);
  }, [routeCaller]);
  const caller = picked ?? callers[0]?.caller ?? 'default';
  const go = (p: string, c = caller, t = tab) =>
    (location.hash = PER_CALLER.has(p) ? `#/${p}/${encodeURIComponent(c)}${p === 'caller' ? `/${t}` : ''}` : `#/${p}`);
  const content = () => {
    switch (page) {
      case 'caller':
        return (
          <div>
            <nav class="tabs" aria-label="caller view">
              {['tools', 'resources', 'prompts'].map((t) => (
                <a href={`#/caller/${encodeURIComponent(caller)}/${t}`} aria-current={t === tab ? 'page' : undefined}>
                  {t}
                </a>
              ))}
            </nav>
            {tab === 'resources' ? (
              <ResourcesTab caller={caller} />
            ) : tab === 'prompts' ? (
              <PromptsTab caller={caller} />
            ) : (
              <ToolsTab caller={caller} />
            )}
          </div>
        );
      case 'logs':
        return <Logs callers={callers} initialCaller={routeCaller} />;
      case 'audit':
        return <Audit callers={callers} />;
      case 'tasks':
        return <Tasks callers={callers} initialCaller={routeCaller} />;
      case 'desktop':
        return <Desktop caller={caller} />;
      case 'finder':
        return <Finder caller={caller} />;
      case 'config':
        return <Config etag={status?.status.configIssues.join('\n') ?? ''} />;
      case 'connect':
        return <Connect caller={caller} />;
      case 'pins':
        return <Pins />;
      default:
        return <Overview status={status} />;
    }
  };
  return (
    <>
      <header>
        <strong class="brand">mcpd</strong>
        <nav aria-label="pages">
          {PAGES.map(([p, label]) => (
            <a
              href={PER_CALLER.has(p) ? `#/${p}/${encodeURIComponent(caller)}${p === 'caller' ? '/tools' : ''}` : `#/${p}`}
              aria-current={p === page ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        {/* One caller picker per page: Logs, Audit and Tasks have their own (with "all callers"), the others need none. */}
        {PER_CALLER.has(page) && (
          <label class="picker">
            caller{' '}
            <select
              aria-label="caller"
              value={caller}
              onChange={(e) => {
                const c = (e.target as HTMLSelectElement).value;
                setPicked(c);
                if (PER_CALLER.has(page)) go(page, c);
              }}
            >
              {(callers.some((c) => c.caller === caller) ? callers : [...callers, { caller, profile: '?', sessions: 0 }]).map((c) => (
                <option value={c.caller}>
                  {c.caller} → {c.profile}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="button" class="logout" onClick={() => conn.logOut()}>
          Log out
        </button>
      </header>
      <Banner />
      <main>
        {/* The page's one top heading: the header holds the brand and the navigation, not a heading. */}
        <h1 class="page-title">
          {PAGES.find(([p]) => p === page)?.[1] ?? 'Overview'}
          {PER_CALLER.has(page) && <span class="muted"> · {caller}</span>}
        </h1>
        {content()}
      </main>
    </>
  );
}

render(<Dashboard />, document.getElementById('root') as HTMLElement);
