import { CLIENTS } from './client-configs.js';
import type { CtlCommand } from './ctl-command.js';
import { SMCP_SUBCOMMANDS } from './ctl-smcp-flags.js';
import { installCompletion, isShell, SHELLS, type Shell } from './completion-install.js';

/** mcpdctl's commands with their flags and fixed first arguments: one table for every shell. */
interface CommandSpec {
  name: string;
  flags: string[];
  /** Words offered for the first argument (client names …); absent = none; 'files' = file names too. */
  words?: readonly string[];
  files?: boolean;
}

const GLOBAL_FLAGS = ['--socket', '--config', '--json', '--help', '--version'];

/** First-argument words the registry cannot know (client and shell names); `files`: file names too. */
const FIRST_WORDS: Record<string, { words: readonly string[]; files?: boolean }> = {
  import: { words: CLIENTS, files: true },
  connect: { words: CLIENTS },
  disconnect: { words: CLIENTS },
  completion: { words: [...SHELLS, 'install'] },
  smcp: { words: SMCP_SUBCOMMANDS },
};

/** The completion table, from the command registry (so a new command completes without an edit here). */
function completionSpecs(commands: readonly CtlCommand[]): CommandSpec[] {
  return commands.map((c) => ({
    name: c.name,
    flags: Object.entries(c.flags ?? {}).flatMap(([n, f]) => (f.short ? [`--${n}`, `-${f.short}`] : [`--${n}`])),
    ...FIRST_WORDS[c.name],
  }));
}

function bash(COMMANDS: readonly CommandSpec[]): string {
  const cases = COMMANDS.map((c) => {
    const words = [...(c.words ?? []), ...c.flags, ...GLOBAL_FLAGS].join(' ');
    const files = c.files ? ' $(compgen -f -- "$cur")' : '';
    return `    ${c.name}) COMPREPLY=($(compgen -W "${words}" -- "$cur")${files}) ;;`;
  }).join('\n');
  return `# bash completion for mcpdctl: source it, or save it as /etc/bash_completion.d/mcpdctl
_mcpdctl() {
  local cur cmd i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) cmd="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$cmd" in
    "") COMPREPLY=($(compgen -W "${COMMANDS.map((c) => c.name).join(' ')} ${GLOBAL_FLAGS.join(' ')}" -- "$cur")) ;;
${cases}
  esac
}
complete -o default -F _mcpdctl mcpdctl
`;
}

function zsh(COMMANDS: readonly CommandSpec[]): string {
  const cases = COMMANDS.map((c) => {
    const words = [...(c.words ?? []), ...c.flags, ...GLOBAL_FLAGS].join(' ');
    return `    ${c.name}) compadd -- ${words}${c.files ? '; _files' : ''} ;;`;
  }).join('\n');
  return `#compdef mcpdctl
# zsh completion for mcpdctl: save it as _mcpdctl in a directory of $fpath (then compinit)
_mcpdctl() {
  local cmd="" w
  for w in \${words[2,CURRENT-1]}; do
    [[ $w == -* ]] || { cmd=$w; break; }
  done
  case $cmd in
    "") compadd -- ${COMMANDS.map((c) => c.name).join(' ')} ${GLOBAL_FLAGS.join(' ')} ;;
${cases}
  esac
}
# Autoloaded from $fpath, this file is _mcpdctl's body: define it, then complete; sourced, register it.
if [[ $funcstack[1] == _mcpdctl ]]; then _mcpdctl "$@"; else compdef _mcpdctl mcpdctl; fi
`;
}

function fish(COMMANDS: readonly CommandSpec[]): string {
  const names = COMMANDS.map((c) => c.name).join(' ');
  const lines = [
    '# fish completion for mcpdctl: save it as ~/.config/fish/completions/mcpdctl.fish',
    'complete -c mcpdctl -f',
    ...GLOBAL_FLAGS.map((f) => `complete -c mcpdctl -l ${f.slice(2)}`),
    ...COMMANDS.map((c) => `complete -c mcpdctl -n "not __fish_seen_subcommand_from ${names}" -a ${c.name}`),
  ];
  for (const c of COMMANDS) {
    const when = `-n "__fish_seen_subcommand_from ${c.name}"`;
    if (c.words?.length) lines.push(`complete -c mcpdctl ${when} -a "${c.words.join(' ')}"`);
    if (c.files) lines.push(`complete -c mcpdctl ${when} -F`);
    // A long flag is `-l name`, a short one (`-n`) `-s n`: `-l` with nothing after it is an error when fish loads the file.
    for (const f of c.flags) lines.push(`complete -c mcpdctl ${when} ${f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`}`);
  }
  return `${lines.join('\n')}\n`;
}

const USAGE =
  `usage: mcpdctl completion <${SHELLS.join('|')}>           print the script\n` +
  `       mcpdctl completion install [${SHELLS.join('|')}]  write it where the shell looks ($SHELL's by default)\n`;

/** `mcpdctl completion <bash|zsh|fish>` prints the script for that shell; `completion install [shell]` installs it. */
export function completionCommand(args: readonly string[], commands: readonly CtlCommand[], write: (s: string) => void): number {
  const [first, second] = args;
  const script = (shell: Shell) => ({ bash, zsh, fish })[shell](completionSpecs(commands));
  if (first === 'install') return installCompletion(second, script, write);
  if (!isShell(first) || second !== undefined) {
    write(USAGE);
    return 2;
  }
  write(script(first));
  return 0;
}
