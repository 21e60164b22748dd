import { renderMarkdown } from './markdown.js';

type Json = Record<string, unknown>;

/** An MCP content block: text, image, audio, embedded resource, resource link. */
function Block({ c }: { c: Json }) {
  switch (c.type) {
    case 'text':
      return <pre class="text">{String(c.text)}</pre>;
    case 'image':
      return <img class="content-image" alt="image result" src={`data:${String(c.mimeType)};base64,${String(c.data)}`} />;
    case 'audio':
      return <audio controls src={`data:${String(c.mimeType)};base64,${String(c.data)}`} />;
    case 'resource': {
      const r = (c.resource ?? {}) as Json;
      return (
        <div class="embedded">
          <div class="muted">embedded resource {String(r.uri)}</div>
          {typeof r.text === 'string' ? (
            <pre class="text">{r.text}</pre>
          ) : (
            <pre class="text">{`(${String(r.mimeType ?? 'binary')} blob)`}</pre>
          )}
        </div>
      );
    }
    case 'resource_link':
      return (
        <div class="embedded">
          resource link <code>{String(c.uri)}</code> {c.name ? `(${String(c.name)})` : ''}
        </div>
      );
    default:
      return <pre class="text">{JSON.stringify(c, null, 2)}</pre>;
  }
}

/** A tools/call result: content blocks, structured content, and the error flag. */
export function ResultView({ result }: { result: Json }) {
  const content = Array.isArray(result.content) ? (result.content as Json[]) : [];
  return (
    <div class={result.isError ? 'result result-error' : 'result'} data-testid="result">
      {result.isError === true && <p class="error">the tool reported an error</p>}
      {content.map((c, i) => (
        <Block key={i} c={c} />
      ))}
      {result.structuredContent !== undefined && (
        <details open>
          <summary>structured content</summary>
          <pre class="text">{JSON.stringify(result.structuredContent, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}

/** resources/read contents: text (markdown rendered when it says so), blobs as images/audio or a note. */
export function ContentsView({ contents }: { contents: Json[] }) {
  return (
    <div class="result">
      {contents.map((c, i) => {
        const mime = String(c.mimeType ?? '');
        if (typeof c.text === 'string') {
          if (mime === 'text/markdown')
            return <div key={i} class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(c.text) }} />;
          return (
            <pre key={i} class="text">
              {c.text}
            </pre>
          );
        }
        if (mime.startsWith('image/')) return <img key={i} alt={String(c.uri)} src={`data:${mime};base64,${String(c.blob)}`} />;
        return (
          <pre key={i} class="text">
            {`${String(c.uri)}: ${mime || 'binary'} blob of ${String(c.blob ?? '').length} base64 characters`}
          </pre>
        );
      })}
    </div>
  );
}
