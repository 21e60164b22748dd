/**
 * The app's HTML as its frame gets it: first in its `<head>` a few lines that report the app's uncaught
 * errors to the dashboard as an MCP `notifications/message` at level error (the page cannot see into the
 * sandboxed frame), so a broken app shows why in its frame area instead of staying blank.
 */
export function framedHtml(html: string): string {
  const at = insertionPoint(html);
  return `${html.slice(0, at)}<script>${ERROR_REPORTER}</script>${html.slice(at)}`;
}

const ERROR_REPORTER = `(function(){var p=window.parent;function send(m){try{p.postMessage({jsonrpc:"2.0",method:"notifications/message",params:{level:"error",logger:"mcpd.app-frame",data:String(m).slice(0,2000)}},"*")}catch(e){}}
addEventListener("error",function(e){send((e.message||"script error")+(e.lineno?" (line "+e.lineno+")":""))});
addEventListener("unhandledrejection",function(e){var r=e.reason;send("unhandled rejection: "+(r&&r.message||r))});})();`;

/** After `<head …>`, else after `<html …>`, else after the doctype: never before it (that would switch to quirks mode). */
function insertionPoint(html: string): number {
  for (const re of [/<head(\s[^>]*)?>/i, /<html(\s[^>]*)?>/i, /<!doctype[^>]*>/i]) {
    const m = re.exec(html);
    if (m) return m.index + m[0].length;
  }
  return 0;
}
