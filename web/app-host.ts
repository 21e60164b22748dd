import './zod-jitless.js';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { conn } from './conn.js';
import { GuardedFrameTransport } from './app-transport.js';
import type { DashboardTool } from '../internal/contract/dashboard/dashboard-events.js';
import type { JsonObject } from '../internal/shared/json.js';
import { toolAudience } from '../internal/contract/model/mcp-apps.js';

/** The tallest an app's frame gets, whatever it asks for. */
const MAX_FRAME_HEIGHT = 900;
/** Tool calls one app may have running at once. */
const MAX_APP_CALLS = 8;

interface AppHostEvents {
  /** The app asked for this height (already bounded). */
  resize(height: number): void;
  /** The app reported an error (its own log at level error or worse, or an uncaught error in its frame). */
  appError(message: string): void;
  /** The app broke a limit and was cut off. */
  stopped(why: string): void;
  /** The app finished its handshake. */
  ready(): void;
}

interface AppHostOptions {
  caller: string;
  tool: DashboardTool;
  /** The caller's tools, as its listing has them: the app may call those of its own server. */
  tools: () => readonly DashboardTool[] | undefined;
  frame: () => Window | null;
  on: AppHostEvents;
}

let appCallSeq = 0;

/**
 * The host side of one MCP App, through the official AppBridge: it answers the app's `ui/initialize`, gives
 * it the tool's input and result, runs the tool calls it makes (only tools of its own server that allow
 * apps, as the caller, through the dashboard socket's `call` — the door's path) and passes on its resize
 * requests and error logs. Links, chat messages, model context and downloads are not offered.
 */
export class AppHost {
  readonly bridge: AppBridge;
  private readonly transport: GuardedFrameTransport;
  private running = 0;

  constructor(private readonly o: AppHostOptions) {
    this.transport = new GuardedFrameTransport(o.frame, (why) => o.on.stopped(why));
    this.bridge = new AppBridge(
      null,
      { name: 'mcpd dashboard', version: '1' },
      { serverTools: {}, logging: {} },
      {
        hostContext: {
          theme: 'light',
          platform: 'web',
          displayMode: 'inline',
          availableDisplayModes: ['inline'],
          containerDimensions: { maxHeight: MAX_FRAME_HEIGHT },
        },
      },
    );
    this.bridge.oncalltool = (params) => this.callTool(params.name, (params.arguments ?? {}) as JsonObject);
    this.bridge.onsizechange = ({ height }) => {
      if (typeof height === 'number' && Number.isFinite(height)) o.on.resize(Math.max(1, Math.min(MAX_FRAME_HEIGHT, Math.ceil(height))));
    };
    this.bridge.onloggingmessage = ({ level, data }) => {
      if (['error', 'critical', 'alert', 'emergency'].includes(level))
        o.on.appError(typeof data === 'string' ? data : JSON.stringify(data));
    };
    this.bridge.oninitialized = () => o.on.ready();
  }

  connect(): Promise<void> {
    return this.bridge.connect(this.transport);
  }

  close(): void {
    // The app gets its teardown notice; the transport closes without waiting for its answer.
    void this.bridge.teardownResource({}).catch(() => {});
    void this.transport.close(); // not awaited: it only removes a listener, and cannot fail
  }

  private async callTool(name: string, args: JsonObject): Promise<CallToolResult> {
    const own = this.o.tools()?.find((t) => t.server === this.o.tool.server && t.downstreamName === name);
    if (!own) throw new Error(`the app may call only tools of its server "${this.o.tool.server}"; the caller sees no tool "${name}" there`);
    if (!toolAudience(own.definition).app) {
      const visibility = (own.definition._meta as { ui?: { visibility?: unknown } }).ui?.visibility;
      throw new Error(`tool "${name}" is not callable by apps (its _meta.ui.visibility is ${JSON.stringify(visibility)})`);
    }
    if (this.running >= MAX_APP_CALLS) throw new Error(`the app has ${MAX_APP_CALLS} tool calls running already; wait for one to end`);
    this.running++;
    try {
      const result = await conn.ask('call', { id: `app-${++appCallSeq}`, caller: this.o.caller, name: own.name, args });
      return result as unknown as CallToolResult;
    } finally {
      this.running--;
    }
  }
}
