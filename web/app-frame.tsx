import { useEffect, useRef, useState } from 'preact/hooks';
import { conn } from './conn.js';
import { AppHost } from './app-host.js';
import { ErrorText } from './error-text.js';
import { appUriOf } from './app-link.js';
import type { AppFrame, DashboardTool } from '../internal/contract/dashboard/dashboard-events.js';
import type { JsonObject } from '../internal/shared/json.js';
import type { CallToolResult } from '@modelcontextprotocol/client';

/** How long an app has to say `ui/initialize` once its page is loading. */
const CONNECT_TIMEOUT_MS = 20_000;
/** The frame's height until the app asks for one. */
const INITIAL_HEIGHT = 160;

export interface AppViewProps {
  caller: string;
  tool: DashboardTool;
  tools: () => readonly DashboardTool[] | undefined;
  args: JsonObject;
  /** The try-it call's result, once it came; or its error. */
  result?: JsonObject;
  error?: string;
}

/**
 * A try-it run of a tool that links an MCP App, shown as the app: its page (prepared by the core, served
 * once from this listener with its own CSP) in an iframe sandboxed to scripts only — an opaque origin, not
 * the dashboard's — and connected through the AppBridge (./app-host.ts). A misbehaving app is cut off and
 * its frame area says why; the page itself goes on.
 */
export function AppView({ caller, tool, tools, args, result, error }: AppViewProps) {
  const iframe = useRef<HTMLIFrameElement>(null);
  const host = useRef<AppHost | undefined>();
  const [frame, setFrame] = useState<AppFrame | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const [stopped, setStopped] = useState<string | undefined>();
  const [appErrors, setAppErrors] = useState<string[]>([]);
  const [height, setHeight] = useState(INITIAL_HEIGHT);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let live = true;
    conn.ask('app-frame', { caller, tool: tool.name }).then(
      (f) => live && setFrame(f),
      (e: Error) => live && setFailure(e.message),
    );
    return () => void (live = false);
  }, []);

  // The bridge listens before the frame loads the app: its first message (ui/initialize) is not missed.
  useEffect(() => {
    const el = iframe.current;
    if (!frame || !el) return;
    const h = new AppHost({
      caller,
      tool,
      tools,
      frame: () => el.contentWindow,
      on: {
        resize: setHeight,
        appError: (m) => setAppErrors((all) => [...all.slice(-4), m]),
        stopped: (why) => (setStopped(why), h.close()),
        ready: () => setReady(true),
      },
    });
    host.current = h;
    let live = true;
    // Not awaited (an effect): the frame gets its page once the bridge listens; a failure shows in the app's area.
    void h.connect().then(
      () => live && (el.src = frame.src),
      (e: Error) => live && setFailure(`the app bridge failed: ${e.message}`),
    );
    return () => {
      live = false;
      host.current = undefined;
      h.close();
    };
  }, [frame]);

  useEffect(() => {
    if (!frame || ready || stopped) return;
    const t = setTimeout(
      () => setFailure(`the app did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (it sent no ui/initialize)`),
      CONNECT_TIMEOUT_MS,
    );
    return () => clearTimeout(t);
  }, [frame, ready, stopped]);

  useEffect(() => {
    // Not awaited: a notification over postMessage; it fails only when the transport is closed (the app is gone).
    if (ready) void host.current?.bridge.sendToolInput({ arguments: args });
  }, [ready]);
  useEffect(() => {
    const b = host.current?.bridge;
    if (!ready || !b) return;
    // Not awaited: notifications over postMessage; they fail only when the transport is closed (the app is gone).
    if (result) void b.sendToolResult(result as unknown as CallToolResult);
    else if (error !== undefined) void b.sendToolCancelled({ reason: error }); // as above
  }, [ready, result, error]);

  return (
    <section class="app-view" aria-label={`app of ${tool.name}`} data-testid="app-view">
      <div class="muted">
        MCP App {frame?.uri ?? appUriOf(tool)} of server {tool.server}
        {frame && frame.csp.connectDomains.length > 0 && ` · may connect to ${frame.csp.connectDomains.join(', ')}`}
        {frame && frame.csp.resourceDomains.length > 0 && ` · loads from ${frame.csp.resourceDomains.join(', ')}`}
      </div>
      {failure && <ErrorText message={`The app cannot be shown: ${failure}`} />}
      {stopped && <ErrorText message={`The app was stopped: ${stopped}`} />}
      {appErrors.map((m, i) => (
        <ErrorText key={i} message={`The app reported an error: ${m}`} />
      ))}
      {frame && !stopped && (
        <iframe
          ref={iframe}
          class={frame.prefersBorder === false ? 'app-frame borderless' : 'app-frame'}
          title={`app of ${tool.name}`}
          sandbox="allow-scripts"
          referrerpolicy="no-referrer"
          height={height}
          data-ready={ready ? 'yes' : 'no'}
        />
      )}
    </section>
  );
}
