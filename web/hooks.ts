import { useEffect, useState } from 'preact/hooks';
import {
  WATCH_EVENTS,
  type DashboardPushes,
  type DashboardRequest,
  type RequestAnswer,
  type RequestArgs,
  type WatchKind,
  type WatchParams,
} from '../internal/contract/dashboard/dashboard-events.js';
import { conn, type ConnState } from './conn.js';

type Watched<K extends WatchKind> = DashboardPushes[(typeof WATCH_EVENTS)[K]];

/** The last payload of a pushed view, re-requested with `watch` on every (re)connection. */
export function useWatch<K extends Exclude<WatchKind, 'logs'>>(kind: K, params: WatchParams[K] | undefined): Watched<K> | undefined {
  const [value, setValue] = useState<Watched<K> | undefined>(undefined);
  const key = JSON.stringify(params ?? null);
  useEffect(() => {
    setValue(undefined);
    if (!params) return;
    const off = conn.on(WATCH_EVENTS[kind], (v) => setValue(v as Watched<K>));
    const watch = { kind, ...params } as RequestArgs<'watch'>;
    // Ignored: a failed watch shows as a dropped connection, which re-watches on connect.
    const offConnect = conn.onConnect(() => void conn.ask('watch', watch).catch(() => {}));
    return () => {
      off();
      offConnect();
      // Ignored: the page is leaving: an unwatch that fails ends with the socket anyway.
      void conn.ask('unwatch', { kind }).catch(() => {});
    };
  }, [kind, key]);
  return value;
}

export interface Loaded<T> {
  value?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** One request's answer, asked again when its inputs change or the connection comes back. */
export function useAsk<E extends DashboardRequest>(
  event: E,
  args: RequestArgs<E> | undefined,
  deps: unknown[] = [],
): Loaded<RequestAnswer<E>> {
  type T = RequestAnswer<E>;
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  const key = JSON.stringify(args ?? null);
  useEffect(() => {
    if (!args) return;
    let live = true;
    const run = () => {
      setState((s) => ({ ...s, loading: true }));
      conn.ask(event, args).then(
        (value) => live && setState({ value, loading: false }),
        (e: Error) => live && setState({ error: e.message, loading: false }),
      );
    };
    const off = conn.onConnect(run);
    return () => {
      live = false;
      off();
    };
  }, [event, key, n, ...deps]);
  return { ...state, reload: () => setN((x) => x + 1) };
}

export function useConnState(): ConnState {
  const [s, setS] = useState(conn.state);
  useEffect(() => {
    const off = conn.onState(() => setS(conn.state));
    // The socket may have connected between the first render and this effect (effects run after paint):
    // without this the banner would say "connecting" for good on a page that works.
    setS(conn.state);
    return off;
  }, []);
  return s;
}

/** Whether requests can be sent now (Run, Get, Read … are disabled otherwise). */
export function useOnline(): boolean {
  return useConnState() === 'online';
}
