/**
 * Deterministic synthetic desktops for the organizer benchmark (target: 10,000 windows over
 * 100 servers in ≤ 20 ms p50) and for tests that need volume. No randomness: the same arguments
 * always give the same windows, so timings compare across runs.
 */
import type { JsonObject } from '../json.js';
import type { ToolCallRecord } from '../history/tool-call-history.js';
import type { DesktopWindowInput } from './organize.js';

export function syntheticWindows(count: number, servers: number): DesktopWindowInput[] {
  const out: DesktopWindowInput[] = [];
  for (let i = 0; i < count; i++) {
    const s = i % servers;
    const priority = (i * 37) % 101;
    // Roughly one server in ten has a fullscreen window, and every 50th window uses the annotations form.
    const fullscreen = s % 10 === 0 && i % 97 === 0;
    const query = `?priority=${priority}${fullscreen ? '&fullscreen=true' : ''}`;
    const uri = `window://com.example.s${s}/main/tab%2F${i}${i % 50 === 0 ? '' : query}`;
    const resource: JsonObject = i % 50 === 0 ? { uri, annotations: { priority: priority / 100 }, _meta: { fullscreen } } : { uri };
    out.push({
      server: `server-${String(s).padStart(3, '0')}`,
      resource,
      contents: [{ uri, mimeType: 'text/plain', text: `window ${i} of server ${s}` }],
    });
  }
  return out;
}

export function syntheticHistory(count: number, servers: number): ToolCallRecord[] {
  const out: ToolCallRecord[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      req_id: `req-${i}`,
      server: `server-${String((i * 7) % servers).padStart(3, '0')}`,
      tool: 'noop',
      parameters: {},
      timeout: null,
      success: true,
      error: null,
    });
  }
  return out;
}
