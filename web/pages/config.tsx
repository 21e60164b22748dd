import { useAsk } from '../hooks.js';

/** The store's files, read-only, with each validation problem shown under its line. */
export function Config({ etag }: { etag: string }) {
  const files = useAsk('config', {}, [etag]);
  if (files.error) return <p class="error">{files.error}</p>;
  if (!files.value) return <p class="muted">loading…</p>;
  if (files.value.length === 0) return <p class="empty">the store has no files</p>;
  return (
    <div>
      {files.value.map((f) => (
        <section class="file" aria-label={f.path}>
          <h3>
            {f.path}{' '}
            {f.issues.length > 0 && (
              // Hash links are the page's routes: the badge scrolls to the first problem instead.
              <button class="badge bad" onClick={() => toFirstIssue(f.path)}>
                {f.issues.length === 1 ? '1 problem' : `${f.issues.length} problems`} · go to line {f.issues[0]?.line}
              </button>
            )}
          </h3>
          <pre class="code">
            {f.text.split('\n').map((line, i) => (
              <>
                <span class="ln">{String(i + 1).padStart(3)}</span> {line}
                {'\n'}
                {f.issues
                  .filter((x) => x.line === i + 1)
                  .map((x) => (
                    <span class="issue" role="note" data-issue-of={f.path}>
                      {`    ▲ ${x.field ? `${x.field}: ` : ''}${x.message}${x.hint ? ` (${x.hint})` : ''}\n`}
                    </span>
                  ))}
              </>
            ))}
          </pre>
          {f.issues
            .filter((x) => x.line < 1 || x.line > f.text.split('\n').length)
            .map((x) => (
              <p class="error">{`${f.path}: ${x.field ? `${x.field}: ` : ''}${x.message}`}</p>
            ))}
        </section>
      ))}
    </div>
  );
}

function toFirstIssue(path: string): void {
  const el = [...document.querySelectorAll<HTMLElement>('[data-issue-of]')].find((e) => e.dataset.issueOf === path);
  el?.scrollIntoView({ block: 'center' });
}
