import type { JsonObject } from '../../../shared/json.js';
import type { LogLevel } from '../../../contract/model/profile.js';

/** What a page sent, checked field by field; errors name the event and the field. */
export class Args {
  constructor(
    private readonly event: string,
    private readonly raw: unknown,
  ) {}

  private get obj(): Record<string, unknown> {
    if (this.raw === null || typeof this.raw !== 'object' || Array.isArray(this.raw)) {
      throw new Error(`${this.event}: expected an object of arguments`);
    }
    return this.raw as Record<string, unknown>;
  }

  str(field: string): string {
    const v = this.obj[field];
    if (typeof v !== 'string' || v === '') throw new Error(`${this.event}: "${field}" must be a non-empty string`);
    return v;
  }

  optStr(field: string): string | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new Error(`${this.event}: "${field}" must be a string`);
    return v;
  }

  optNum(field: string): number | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${this.event}: "${field}" must be a non-negative number`);
    return v;
  }

  object(field: string): JsonObject {
    const v = this.obj[field] ?? {};
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${this.event}: "${field}" must be a JSON object`);
    return v as JsonObject;
  }

  level(field: string): LogLevel {
    const v = this.optStr(field) ?? 'debug';
    if (!LEVELS.includes(v as LogLevel)) throw new Error(`${this.event}: "${field}" must be one of ${LEVELS.join(', ')}`);
    return v as LogLevel;
  }
}

const LEVELS: LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
