import { describe, expect, it } from 'vitest';
import { denialLine, describeDenials, sandboxDenials } from './denials.js';

describe('sandbox denials in a start error', () => {
  it('names the host:port mcpd refused, and hosts and paths the server could not reach', () => {
    const lines = [
      denialLine({ host: 'api.evil.test', port: 443, why: 'is not in network.allow' }),
      denialLine({ host: '[::1]', port: 8080, why: 'is loopback, which only a literal entry (127.0.0.1:PORT, localhost:PORT) allows' }),
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      "Error: ENOENT: no such file or directory, open '/home/u/.ssh/id_rsa'",
      "PermissionError: [Errno 13] Permission denied: '/etc/mcpd/token'",
      'an ordinary line',
    ];
    const d = sandboxDenials(lines);
    expect(d.hosts).toEqual(['api.evil.test:443', '[::1]:8080', '127.0.0.1:5432 (ECONNREFUSED)']);
    expect(d.paths).toEqual(['/home/u/.ssh/id_rsa (ENOENT)', '/etc/mcpd/token (Permission denied)']);
    expect(describeDenials(d)).toBe(
      '; the sandbox may have refused it: paths /home/u/.ssh/id_rsa (ENOENT), /etc/mcpd/token (Permission denied) (outside its filesystem grants?); ' +
        'hosts api.evil.test:443, [::1]:8080, 127.0.0.1:5432 (ECONNREFUSED) (not in network.allow?)',
    );
  });

  it('says nothing when the output names nothing the sandbox refuses', () => {
    expect(describeDenials(sandboxDenials(['listening on stdio', 'ready']))).toBe('');
  });
});
