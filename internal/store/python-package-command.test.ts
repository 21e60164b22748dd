import { describe, expect, it } from 'vitest';
import { packageCommand, pinnedCommand } from './package-command.js';
import { pythonPackageCommand } from './python-package-command.js';
import { highestMatching } from './python-versions.js';
import { pypiJsonRoot } from './pypi-resolve.js';

const pin = (cmd: string[], version: string) => {
  const p = packageCommand(cmd);
  if (!p) throw new Error(`not a package start: ${cmd.join(' ')}`);
  return pinnedCommand(cmd, p, version);
};

describe('uvx and pipx starts of a PyPI package', () => {
  it('finds the package past options and their values, in every form', () => {
    expect(pythonPackageCommand(['uvx', '--python', '3.12', 'mcp-server-git', '--repository', '.'])).toMatchObject({
      runner: 'uvx',
      index: 3,
      name: 'mcp-server-git',
      requested: 'latest',
      form: 'tool',
    });
    expect(pythonPackageCommand(['/usr/bin/uvx', 'mcp-server-git@1.2.0'])).toMatchObject({ requested: '==1.2.0' });
    expect(pythonPackageCommand(['uv', 'tool', 'run', '--from', 'pkg[x]~=1.4', 'tool'])).toMatchObject({
      runner: 'uvx',
      index: 4,
      name: 'pkg',
      extras: '[x]',
      requested: '~=1.4',
      form: 'from',
    });
    expect(pythonPackageCommand(['pipx', 'run', '--python', 'python3.11', 'pkg==2.0'])).toMatchObject({
      runner: 'pipx',
      index: 4,
      requested: '==2.0',
      form: 'tool',
    });
    expect(pythonPackageCommand(['pipx', 'run', '--spec=pkg>=1,<2', 'app'])).toMatchObject({ inline: true, requested: '>=1,<2' });
  });

  it('leaves alone what is not a registry requirement', () => {
    for (const cmd of [
      ['uvx', '--from', 'git+https://github.com/o/r', 'tool'],
      ['uvx', './local-dir'],
      ['uvx', 'pkg; python_version<"3.8"'],
      ['pipx', 'install', 'pkg'],
      ['python', '-m', 'pkg'],
      ['uvx'],
    ])
      expect(pythonPackageCommand(cmd), cmd.join(' ')).toBeUndefined();
  });

  it('writes the start back at exactly the pinned version', () => {
    expect(pin(['uvx', 'mcp-server-git', '-r', '.'], '1.0.0')).toEqual(['uvx', 'mcp-server-git@1.0.0', '-r', '.']);
    expect(pin(['uvx', 'pkg[cli]'], '1.0.0')).toEqual(['uvx', '--from', 'pkg[cli]==1.0.0', 'pkg']);
    expect(pin(['uvx', '--from=pkg>=1', 'tool'], '1.3')).toEqual(['uvx', '--from=pkg==1.3', 'tool']);
    expect(pin(['pipx', 'run', 'pkg==0.9', 'a'], '0.9')).toEqual(['pipx', 'run', '--spec', 'pkg==0.9', 'pkg', 'a']);
    expect(pin(['pipx', 'run', '--spec', 'pkg', 'app'], '2.1')).toEqual(['pipx', 'run', '--spec', 'pkg==2.1', 'app']);
    expect(pin(['npx', '-y', 'srv@^1'], '1.4.0')).toEqual(['npx', '-y', 'srv@1.4.0']);
  });
});

describe('choosing a release for a range', () => {
  const releases = ['0.9', '1.0', '1.0.1', '1.4.2', '1.10.0', '2.0.0', '2.1.0rc1'];
  it('takes the highest final release every clause allows', () => {
    expect(highestMatching(releases, '>=1,<2')).toBe('1.10.0');
    expect(highestMatching(releases, '~=1.0.0')).toBe('1.0.1');
    expect(highestMatching(releases, '~=1.4')).toBe('1.10.0');
    expect(highestMatching(releases, '==1.*,!=1.10.0')).toBe('1.4.2');
    expect(highestMatching(releases, '>2')).toBeUndefined(); // 2.1.0rc1 is a pre-release
    expect(highestMatching(releases, '==1.0.0')).toBe('1.0');
  });
});

describe('the index the JSON API is asked', () => {
  it('is the one uv or pip would use, without its simple/ suffix', () => {
    expect(pypiJsonRoot({})).toBe('https://pypi.org');
    expect(pypiJsonRoot({ UV_DEFAULT_INDEX: 'http://127.0.0.1:9/simple/' })).toBe('http://127.0.0.1:9');
    expect(pypiJsonRoot({ PIP_INDEX_URL: 'https://pypi.example.com/root' })).toBe('https://pypi.example.com/root');
  });
});
