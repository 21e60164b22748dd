/** Longer errors (a schema validation dump) show their start; the rest opens on demand. */
const SHORT = 200;

/**
 * An error message as a person reads it: a prefix the layers repeated ("MCP error -32602: MCP error
 * -32602: …") said once, and a long message cut to its first line with the whole text behind "details".
 */
export function ErrorText({ message }: { message: string }) {
  const text = tidyError(message);
  const first = text.split('\n')[0] ?? '';
  const short = first.length > SHORT ? `${first.slice(0, SHORT - 1)}…` : first;
  return (
    <div class="error" role="alert">
      {short}
      {short !== text && (
        <details>
          <summary>details</summary>
          <pre class="text">{text}</pre>
        </details>
      )}
    </div>
  );
}

/** Says a repeated "MCP error N: " prefix once. */
function tidyError(message: string): string {
  return message.replace(/^(MCP error -?\d+: )(?:MCP error -?\d+: )+/, '$1');
}
