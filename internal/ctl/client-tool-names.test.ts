import { describe, expect, it } from 'vitest';
import { MIN_NAME_BUDGET, prefixedName } from '../contract/model/naming.js';
import { DEFAULT_NAMESPACE } from '../contract/model/profile.js';
import { CLIENTS } from './client-configs.js';
import { reserveFor, toolNameRule } from './client-tool-names.js';

describe('the entry name connect writes leaves mcpd’s names room within each client’s limit', () => {
  it.each(CLIENTS.filter((c) => toolNameRule(c)).map((c) => [c]))('%s', (client) => {
    const rule = toolNameRule(client);
    if (!rule) throw new Error('no rule');
    // `mcpd` (every mode of connect writes that entry name) leaves the names a budget the namespace accepts.
    const room = rule.limit - rule.prefix('mcpd').length;
    expect(room).toBeGreaterThanOrEqual(MIN_NAME_BUDGET);
    for (const maxLength of [MIN_NAME_BUDGET, 48, 64, 100]) {
      const reserve = reserveFor(rule, 'mcpd', maxLength);
      expect(maxLength - reserve).toBeGreaterThanOrEqual(Math.min(maxLength, MIN_NAME_BUDGET));
      const name = prefixedName('a-rather-long-server-name-for-budgets', 'x'.repeat(70), { ...DEFAULT_NAMESPACE, maxLength, reserve });
      expect(`${rule.prefix('mcpd')}${name}`.length).toBeLessThanOrEqual(rule.limit);
    }
  });
});
