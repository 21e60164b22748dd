import type { Area } from './area.js';
import { contextArea } from './context.js';
import { logsArea } from './logs.js';
import { promptsArea } from './prompts.js';
import { resourcesArea } from './resources.js';
import { serversArea } from './servers.js';
import { tasksArea } from './tasks.js';
import { toolsArea } from './tools.js';

/** Every area of the control plane; the three projectors build their tables from this list. */
export const AREAS: readonly Area[] = [toolsArea, resourcesArea, promptsArea, logsArea, contextArea, tasksArea, serversArea];
