import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { callUnary } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';
import { ago, renderTable, truncate } from './table.js';

const taskJson = (t: pb.TaskInfo): unknown => JSON.parse(Buffer.from(t.taskJson).toString('utf8'));

/**
 * `mcpdctl tasks <caller> [task] [--cancel]`: the tasks the core hosts for the caller (newest first), one
 * task in full (its result, error or input requests), or cancelling one.
 */
export async function tasksCommand(
  client: ControlPlaneClient,
  caller: string,
  taskId: string | undefined,
  cancel: boolean,
  out: Out,
): Promise<void> {
  if (cancel) {
    if (taskId === undefined) throw new Error('--cancel needs the task id: mcpdctl tasks <caller> <task> --cancel');
    await callUnary<pb.CancelTaskRequest, pb.CancelTaskResponse>((r, cb) => client.cancelTask(r, cb), { caller, taskId });
    return out.write(out.json ? `${JSON.stringify({ cancelled: taskId })}\n` : `task ${taskId} cancelled\n`);
  }
  if (taskId !== undefined) {
    const r = await callUnary<pb.GetTaskRequest, pb.GetTaskResponse>((q, cb) => client.getTask(q, cb), { caller, taskId });
    return out.write(`${JSON.stringify(r.task ? taskJson(r.task) : {}, null, 2)}\n`);
  }
  const { tasks } = await callUnary<pb.ListTasksRequest, pb.ListTasksResponse>((r, cb) => client.listTasks(r, cb), { caller });
  if (out.json)
    return out.write(
      `${JSON.stringify(
        tasks.map((t) => ({ tool: t.tool, ...(taskJson(t) as object) })),
        null,
        2,
      )}\n`,
    );
  if (tasks.length === 0) return out.write(`caller "${caller}" has no tasks (kept for their ttlMs after they end)\n`);
  const rows = tasks.map((t) => [t.taskId, t.status, t.tool, ago(t.createdAtUnixMs), truncate(t.statusMessage, 60)]);
  out.write(renderTable(['TASK', 'STATUS', 'TOOL', 'STARTED', 'MESSAGE'], rows));
}
