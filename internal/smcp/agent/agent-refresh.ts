/**
 * Notifications → refreshed views: tools on enter/update_tool_list/update_config, desktop on update_desktop,
 * finder on update_finder, config on update_config. Failures are reported, never thrown.
 */
import { NOTIFY_EVENTS } from '../../contract/smcp/events.js';
import type { Desktop, GetComputerConfigRet, GetFinderRet, SMCPTool } from '../../contract/smcp/types.js';
import type { NotifyPayloads, RefreshEvents } from './notify-types.js';

/** The part of SmcpAgent the refresh wiring uses (an interface, so the two files do not import each other). */
export interface RefreshTarget {
  on<E extends keyof NotifyPayloads>(event: E, handler: (data: NotifyPayloads[E]) => void): unknown;
  emitRefresh<E extends keyof RefreshEvents>(event: E, data: RefreshEvents[E]): void;
  getTools(computer: string): Promise<SMCPTool[]>;
  getDesktop(computer: string): Promise<Desktop[]>;
  getFinder(computer: string): Promise<GetFinderRet>;
  getConfig(computer: string): Promise<GetComputerConfigRet>;
}

export function wireRefresh(agent: RefreshTarget): void {
  const attempt = (what: string, f: () => Promise<void>): void => {
    f().catch((error: unknown) => agent.emitRefresh('error', { what, error: error as Error }));
  };
  const tools = (computer: string): void =>
    attempt(`tools of ${computer}`, async () => agent.emitRefresh('tools', { computer, tools: await agent.getTools(computer) }));
  agent.on(NOTIFY_EVENTS.enterOffice, (d) => {
    if (d.computer) tools(d.computer);
  });
  agent.on(NOTIFY_EVENTS.leaveOffice, (d) => {
    if (d.computer) agent.emitRefresh('computerLeft', { computer: d.computer });
  });
  agent.on(NOTIFY_EVENTS.updateToolList, (d) => tools(d.computer));
  agent.on(NOTIFY_EVENTS.updateConfig, (d) => {
    tools(d.computer);
    attempt(`config of ${d.computer}`, async () =>
      agent.emitRefresh('config', { computer: d.computer, config: await agent.getConfig(d.computer) }),
    );
  });
  agent.on(NOTIFY_EVENTS.updateDesktop, (d) =>
    attempt(`desktop of ${d.computer}`, async () =>
      agent.emitRefresh('desktop', { computer: d.computer, desktops: await agent.getDesktop(d.computer) }),
    ),
  );
  agent.on(NOTIFY_EVENTS.updateFinder, (d) =>
    attempt(`finder of ${d.computer}`, async () =>
      agent.emitRefresh('finder', { computer: d.computer, finder: await agent.getFinder(d.computer) }),
    ),
  );
}
