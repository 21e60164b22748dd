import { useEffect, useState } from 'preact/hooks';
import { conn, type ConnState } from './conn.js';

/** The last payload of a pushed event, re-requested with `watch` on every (re)connection. */
export function useWatch<T>(kind: string, event: string, args: Record<string, unknown> | undefined): T | undefined {
  const [value, setValue] = useState<T | undefined>(undefined);
  const key = JSON.stringify(args ?? null);
  useEffect(() => {
    setValue(undefined);
    if (!args) return;
    const off = conn.on(event, (v) => setValue(v as T));
    // Ignored: a failed watch shows as a dropped connection, which re-watches on connect.
    const offConnect = conn.onConnect(() => void conn.ask('watch', { kind, ...args }).catch(() => {}));
    return () => {
      off();
      offConnect();
      // Ignored: the page is leaving: an unwatch that fails ends with the socket anyway.
      void conn.ask('unwatch', { kind }).catch(() => {});
    };
  }, [kind, event, key]);
  return value;
}

export interface Loaded<T> {
  value?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** One request's answer, asked again when its inputs change or the connection comes back. */
export function useAsk<T>(event: string, args: Record<string, unknown> | undefined, deps: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  const key = JSON.stringify(args ?? null);
  useEffect(() => {
    if (!args) return;
    let live = true;
    const run = () => {
      setState((s) => ({ ...s, loading: true }));
      conn.ask<T>(event, args).then(
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
  useEffect(() => conn.onState(() => setS(conn.state)), []);
  return s;
}
