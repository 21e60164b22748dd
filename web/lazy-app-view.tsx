import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import type { AppViewProps } from './app-frame.js';
import { ErrorText } from './error-text.js';

let loading: Promise<ComponentType<AppViewProps>> | undefined;

/**
 * The MCP App view, loaded when a tool's app first opens: the AppBridge and its schemas are four times the
 * rest of the dashboard, which most pages never need (scripts/build-dashboard.mjs splits them off).
 */
export function LazyAppView(props: AppViewProps) {
  const [View, setView] = useState<ComponentType<AppViewProps> | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    loading ??= import('./app-frame.js').then((m) => m.AppView);
    let live = true;
    loading.then(
      (v) => live && setView(() => v),
      (e: Error) => {
        loading = undefined; // the next run tries again
        if (live) setError(`The app view could not be loaded: ${e.message}`);
      },
    );
    return () => void (live = false);
  }, []);
  if (error) return <ErrorText message={error} />;
  return View ? <View {...props} /> : <div class="muted">loading the app view…</div>;
}
