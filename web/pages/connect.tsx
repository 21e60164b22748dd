import { useState } from 'preact/hooks';
import { useAsk } from '../hooks.js';

/** Ready-to-paste client configurations for a caller, with copy buttons. */
export function Connect({ caller }: { caller: string }) {
  const info = useAsk('connect-info', {});
  const [copied, setCopied] = useState('');
  if (info.error) return <p class="error">{info.error}</p>;
  const i = info.value;
  if (!i) return <p class="muted">loading…</p>;
  // --socket: the client must reach this very core, even when it runs on a socket other than the default.
  const args = [i.gateway, caller, '--config', i.configDir, '--socket', i.socket];
  const snippets: [string, string][] = [
    ['Claude Desktop (claude_desktop_config.json)', JSON.stringify({ mcpServers: { mcpd: { command: i.node, args } } }, null, 2)],
    ['VS Code (.vscode/mcp.json)', JSON.stringify({ servers: { mcpd: { type: 'stdio', command: i.node, args } } }, null, 2)],
    ['Cursor (~/.cursor/mcp.json)', JSON.stringify({ mcpServers: { mcpd: { command: i.node, args } } }, null, 2)],
    [
      'Streamable HTTP (run the gateway, then point the client at the URL)',
      `${i.node} ${args.join(' ')} --http 127.0.0.1:8931\n# client URL: http://127.0.0.1:8931/mcp`,
    ],
  ];
  const copy = (title: string, text: string) => {
    navigator.clipboard.writeText(text).then(
      () => setCopied(title),
      () => setCopied(`${title}: the browser refused the clipboard; select the text instead`),
    );
  };
  return (
    <div>
      <p class="muted">
        For caller <strong>{caller}</strong> (core socket {i.socket})
      </p>
      {snippets.map(([title, text]) => (
        <section class="snippet" aria-label={title}>
          <div class="item-head">
            <h3>{title}</h3>
            <button onClick={() => copy(title, text)}>Copy</button>
            {copied.startsWith(title) && <span role="status">{copied === title ? 'copied' : copied}</span>}
          </div>
          <pre class="code">{text}</pre>
        </section>
      ))}
    </div>
  );
}
