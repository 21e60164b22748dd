import type { NOTIFY_EVENTS } from '../../contract/smcp/events.js';
import type {
  EnterOfficeNotification,
  GetComputerConfigRet,
  GetFinderRet,
  LeaveOfficeNotification,
  SMCPTool,
  ToolCallCancel,
  UpdateComputerConfigReq,
} from '../../contract/smcp/types.js';

/** Payload of each `notify:*` event. */
export interface NotifyPayloads {
  [NOTIFY_EVENTS.enterOffice]: EnterOfficeNotification;
  [NOTIFY_EVENTS.leaveOffice]: LeaveOfficeNotification;
  [NOTIFY_EVENTS.updateConfig]: UpdateComputerConfigReq;
  [NOTIFY_EVENTS.updateToolList]: UpdateComputerConfigReq;
  [NOTIFY_EVENTS.updateDesktop]: UpdateComputerConfigReq;
  [NOTIFY_EVENTS.updateFinder]: UpdateComputerConfigReq;
  [NOTIFY_EVENTS.toolCallCancel]: ToolCallCancel;
}

/** What the agent fetched again after a notification: the refreshed view of one computer. */
export interface RefreshEvents {
  tools: { computer: string; tools: SMCPTool[] };
  desktop: { computer: string; desktops: string[] };
  finder: { computer: string; finder: GetFinderRet };
  config: { computer: string; config: GetComputerConfigRet };
  /** A computer left the office: its cached views are gone. */
  computerLeft: { computer: string };
  /** The connection came back and the agent is in its office again. */
  rejoined: { office: string };
  /** A refresh or re-join failed; the agent keeps running. */
  error: { what: string; error: Error };
}
