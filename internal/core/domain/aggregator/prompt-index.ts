import type { PromptEntry, PromptSnapshot } from '../../../contract/control/control-areas.js';
import { NamedIndex, type NamedIndexOptions } from './named-index.js';
import { buildPromptSnapshot, type PromptsByServer } from './prompt-snapshot.js';

export type PromptIndexOptions = NamedIndexOptions;

const PROMPTS_LISTING = 'prompts';

/** One profile's prompt listing: snapshots, pinned cursors, watchers, exposed-name lookup. */
export class PromptIndex extends NamedIndex<PromptsByServer, PromptSnapshot, PromptEntry> {
  constructor(opts: PromptIndexOptions) {
    super({ listing: PROMPTS_LISTING, noun: 'prompt', empty: new Map(), build: buildPromptSnapshot, items: (s) => s.prompts }, opts);
  }
}
