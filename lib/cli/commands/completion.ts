// `lockguard completion [bash]`: the shell completion script, printed for the user to load.
//
// Owns: the bash script. It completes the command names (and help, the global flags) after `lockguard`,
// `lockguard help <command>`, and a command's flags after a `-`, read from that command's own --help at Tab
// time (so the script never goes stale when a flag is added: help-options.test.ts holds every parsed flag to
// its help); after `run --` the wrapped command gets the shell's own completion (files).
// Invariants: prints only; reads nothing; the script calls only `lockguard` itself (whichever the shell
// finds: node_modules/.bin through npx/pnpm exec is the user's choice) and POSIX tools bash has (grep, sort).

import { parse } from '../args.js';
import { COMMAND_NAMES } from '../command-names.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { LockguardError } from '../../core/errors.js';

const SHELLS = ['bash'];

const help = `Usage: lockguard completion [bash]

Prints a bash completion script for lockguard. Load it in the current shell:
  source <(lockguard completion bash)
or once for every shell (bash-completion's folder):
  lockguard completion bash > ~/.local/share/bash-completion/completions/lockguard

It completes command names after "lockguard" and "lockguard help", and a command's flags after "-": those
are read from "lockguard <command> --help" when you press Tab, so they match the lockguard the shell finds.
After "lockguard run --" the wrapped command completes as the shell completes files.

Options:
  -h, --help   this text
`;

/** The bash script: command words are fixed here, flags come from each command's --help at Tab time. */
export function bashScript(): string {
  const words = [...COMMAND_NAMES, 'help'].join(' ');
  return `# lockguard completion for bash (lockguard completion bash)
_lockguard() {
  local cur=\${COMP_WORDS[COMP_CWORD]} i cmd=
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      --) COMPREPLY=($(compgen -f -- "$cur")); return ;;
      -C|--dir) ((i++)) ;;
      -*) ;;
      *) if [[ -z $cmd ]]; then cmd=\${COMP_WORDS[i]}; elif [[ $cmd == help ]]; then return; fi ;;
    esac
  done
  if [[ -z $cmd || $cmd == help ]]; then
    if [[ $cur == -* && -z $cmd ]]; then
      COMPREPLY=($(compgen -W "--help --version --verbose --quiet --dir" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "${words}" -- "$cur"))
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    local flags
    flags=$(command lockguard "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
    COMPREPLY=($(compgen -W "$flags --verbose --quiet" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _lockguard lockguard
`;
}

export const command: Command = {
  help,
  async run(argv, io) {
    const { positionals } = parse('completion', argv, {}, true);
    const shell = positionals[0] ?? 'bash';
    if (positionals.length > 1 || !SHELLS.includes(shell))
      throw new LockguardError(
        'ERR_LOCKGUARD_USAGE',
        `lockguard completion prints a script for ${SHELLS.join(', ')}, not "${positionals.join(' ')}".`,
        {
          hint: 'Run: source <(lockguard completion bash)',
        },
      );
    io.stdout.write(bashScript());
    return EXIT.ok;
  },
};
