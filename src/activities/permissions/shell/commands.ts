/**
 * What the permission check knows about particular commands: wrappers that run another command
 * (`timeout 5 git status`, `xargs rm`, `find -exec`, `sudo`), strings run as shell code
 * (`eval`, `bash -c`, `trap`), builtins that change how later commands are found, read-only
 * commands (auto-allowed when every file they read is allowed) and file commands (`rm`, `mkdir`…,
 * whose operands are checked like edits). Pure.
 */
import type { Complexity, FoundCommand } from './analyze';
import type { Word } from '../../../config-files/shell-words';
import { DYNAMIC, DYNAMIC_WORD, commandText, staticWord } from '../../../config-files/shell-words';

/** How a command is treated. */
export type CommandKind =
  /** Only reads: allowed without a rule when every path operand may be read. */
  | 'readOnly'
  /** Creates, changes or removes its path operands (rm, mkdir, touch, cp, mv, ln). */
  | 'fileWrite'
  /** Changes directory: relative paths after it resolve elsewhere. */
  | 'cd'
  /** Harmless builtin with no files (`true`, `false`, `sleep`, a wrapper with no command). */
  | 'builtin'
  /** Anything else: needs an allow rule. */
  | 'other';

/** One command as the rules see it. */
export interface CheckedCommand {
  /** Text rules are matched against: assignments in front, then the words (run-time parts as DYNAMIC). */
  text: string;
  /** The same without the assignments in front. */
  bareText: string;
  kind: CommandKind;
  /** False for wrappers whose inner command is checked on its own (`timeout 5 …`, `nohup …`). */
  needsRule: boolean;
  /** Path operands of read-only and file commands, and the target of `cd`. */
  paths: Array<{ word: Word; access: 'read' | 'write' }>;
  /** Why what it starts cannot be seen (a script file, `watch`, `ssh`…); deny rules cannot be enforced through it. */
  opaque?: string;
  /** Source text and position, for messages and ordering. */
  source: string;
  offset: number;
}

/** A string a command runs as shell code (`eval "…"`, `bash -c "…"`, `trap "…" EXIT`). */
export interface NestedScript {
  source: string;
  offset: number;
  via: string;
}

/** What a found command expands to. */
export interface Unwrapped {
  commands: CheckedCommand[];
  nested: NestedScript[];
  tooComplex: Complexity[];
}

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'busybox', 'fish', 'csh', 'tcsh']);
/** Programs that start other programs in ways not visible here. */
const OPAQUE_LAUNCHERS = new Set([
  'watch',
  'strace',
  'ltrace',
  'script',
  'flock',
  'unshare',
  'nsenter',
  'chroot',
  'setsid',
  'ionice',
  'chrt',
  'taskset',
  'parallel',
  'su',
  'runuser',
  'ssh',
  'firejail',
  'bwrap',
  'systemd-run',
  'source',
  '.',
  'sg',
  'pkexec',
]);
/** Builtins that evaluate code or change how later commands are found or parsed. */
const STEERING_BUILTINS = new Set([
  'alias',
  'hash',
  'enable',
  'shopt',
  'bind',
  'complete',
  'compgen',
  'fc',
  'coproc',
  'let',
  'mapfile',
  'readarray',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'caller',
]);
/**
 * Commands that run without a rule although they are neither reads nor file commands: those
 * `claude -p` 2.1.328 runs without asking. Builtins that steer the shell's flow or state (`exit`,
 * `return`, `break`, `continue`, `shift`, `wait`, `:`, `set`, `umask`, …) and calls of functions
 * the command defines need a rule, as Claude Code asks about them (test/unit/permissions/
 * hostile-commands.test.ts, bench/hostile-commands.ts `CLAUDE_ASKS`).
 */
const HARMLESS_BUILTINS = new Set(['sleep', 'true', 'false']);
/** Wrappers that need a rule of their own, as in Claude Code; the command they run is checked too. */
const RULED_WRAPPERS = new Set(['nohup', 'time', 'exec']);
/** Read-only commands without file operands. */
const READ_ONLY_NO_PATHS = new Set([
  'echo',
  'printf',
  'pwd',
  'whoami',
  'id',
  'uname',
  'date',
  'seq',
  'basename',
  'dirname',
  'which',
  'type',
  'test',
  'tr',
  'hostname',
  'nproc',
]);
/** Read-only commands whose operands are files they read. */
const READ_ONLY_WITH_PATHS = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'ls',
  'nl',
  'tac',
  'file',
  'stat',
  'du',
  'cut',
  'sort',
  'uniq',
  'grep',
  'egrep',
  'fgrep',
  'realpath',
  'readlink',
  'diff',
  'cmp',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'od',
  'tree',
  'comm',
]);
/** File commands: every operand is a path they create, change or remove. */
const FILE_WRITE = new Set(['mkdir', 'touch', 'rm', 'rmdir', 'cp', 'mv', 'ln']);
/** Options of a read-only command that make it write or run something. */
const WRITING_OPTIONS: Record<string, RegExp> = {
  sort: /^(-o|--output|--compress-program|-T|--temporary-directory)/,
  date: /^(-s|--set)/,
  printf: /^-v/,
  tree: /^(-o)/,
  hostname: /^[^-]|^-F|^--file/,
  diff: /^--to-file|^--from-file/,
};
/**
 * Options of a read-only command that name a file it reads (GNU coreutils, grep, file and tree
 * manuals), as `-f FILE`, `-fFILE`, `--file FILE` or `--file=FILE`: each such file is checked as a
 * read like an operand (`date -f FILE` prints every line of FILE in its errors, `wc
 * --files0-from=FILE` every name in it). grep's `-f` is read by {@link grepFiles}.
 */
const FILE_READING_OPTIONS: Record<string, { short: readonly string[]; long: readonly string[] }> = {
  date: { short: ['-f', '-r'], long: ['--file', '--reference'] },
  wc: { short: [], long: ['--files0-from'] },
  du: { short: ['-X'], long: ['--files0-from', '--exclude-from'] },
  sort: { short: [], long: ['--files0-from', '--random-source'] },
  file: { short: ['-f', '-m'], long: ['--files-from', '--magic-file'] },
  diff: { short: ['-X'], long: ['--exclude-from'] },
  tree: { short: [], long: ['--fromfile'] },
  grep: { short: [], long: ['--exclude-from'] },
  egrep: { short: [], long: ['--exclude-from'] },
  fgrep: { short: [], long: ['--exclude-from'] },
};

/** The part of an option word after `from` (its value), as known as the word is. */
function optionValue(w: Word, from: number): Word {
  return { value: w.value.slice(from), dynamic: w.dynamic };
}

/** The files a read-only command's options make it read ({@link FILE_READING_OPTIONS}). */
function optionFiles(name: string, args: readonly Word[]): Word[] {
  const t = FILE_READING_OPTIONS[name];
  if (!t) return [];
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Word;
    if (a.value === '--') break;
    if (!a.value.startsWith('-') || a.value === '-') continue;
    const eq = a.value.indexOf('=');
    const opt = a.value.startsWith('--') && eq > 0 ? a.value.slice(0, eq) : a.value;
    // A long option may be abbreviated to any unique prefix (`--files0=F`); any prefix counts.
    const long = opt.startsWith('--') && opt.length > 3 && t.long.some((l) => l.startsWith(opt));
    if (long && eq > 0) out.push(optionValue(a, eq + 1));
    else if (long || t.short.includes(a.value)) {
      const v = args[i + 1];
      if (v) out.push(v);
      i++;
    } else if (!a.value.startsWith('--')) {
      // Clustered short options: the value follows the letter, in the same word or the next.
      for (let j = 1; j < a.value.length; j++) {
        if (!t.short.includes(`-${a.value[j] ?? ''}`)) continue;
        if (j + 1 < a.value.length) out.push(optionValue(a, j + 1));
        else if (args[i + 1]) out.push(args[++i] as Word);
        break;
      }
    }
  }
  return out;
}

/** Options of grep that take the next word as their value (`-e` and `-f` carry patterns). */
const GREP_VALUE_OPTIONS = new Set(['-e', '-f', '-m', '-A', '-B', '-C', '-d', '-D', '--regexp', '--file']);

function nameOf(w: Word): string {
  const v = w.value;
  const slash = v.lastIndexOf('/');
  return slash === -1 ? v : v.slice(slash + 1);
}

function checked(
  env: Word[],
  argv: Word[],
  found: FoundCommand,
  kind: CommandKind,
  extra: Partial<Pick<CheckedCommand, 'needsRule' | 'paths' | 'opaque'>> = {},
): CheckedCommand {
  const bareText = commandText(argv);
  return {
    text: env.length > 0 ? `${commandText(env)} ${bareText}` : bareText,
    bareText,
    kind,
    needsRule: extra.needsRule ?? (kind === 'other' || kind === 'fileWrite'),
    paths: extra.paths ?? [],
    ...(extra.opaque !== undefined ? { opaque: extra.opaque } : {}),
    source: found.source,
    offset: found.offset,
  };
}

/** Operands after options (`--` ends options). */
function operands(args: readonly Word[]): Word[] {
  const out: Word[] = [];
  let ended = false;
  for (const a of args) {
    if (!ended && a.value === '--') {
      ended = true;
      continue;
    }
    if (!ended && a.value.startsWith('-') && a.value !== '-') continue;
    out.push(a);
  }
  return out;
}

/** Skips leading options of a wrapper; `withValue` options consume the next word. */
function skipOptions(args: Word[], withValue: RegExp, flags: RegExp): Word[] | 'unknown' {
  let i = 0;
  while (i < args.length) {
    const a = args[i] as Word;
    if (a.dynamic) return 'unknown';
    if (a.value === '--') return args.slice(i + 1);
    if (!a.value.startsWith('-') || a.value === '-') break;
    if (withValue.test(a.value)) i += 2;
    else if (flags.test(a.value)) i += 1;
    else return 'unknown';
  }
  return args.slice(i);
}

/**
 * Expands one found command into the commands the rules must see, looking through wrappers.
 * @param functions functions the script defines (calling them needs no rule: their bodies are checked).
 */
export function unwrapCommand(found: FoundCommand, functions: ReadonlySet<string>): Unwrapped {
  const out: Unwrapped = { commands: [], nested: [], tooComplex: [] };
  const complex = (reason: string): void => {
    out.tooComplex.push({ reason, offset: found.offset });
  };
  let env = [...found.env];
  let argv = [...found.argv];

  for (let depth = 0; depth < 16; depth++) {
    const head = argv[0];
    if (!head) return out;
    if (head.dynamic) {
      complex(`the command name \`${found.source.slice(0, 60)}\` is only known at run time`);
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    const name = nameOf(head);
    const args = argv.slice(1);
    const transparent = (inner: Word[] | 'unknown', what: string): boolean => {
      if (inner === 'unknown') {
        complex(`the options of \`${what}\` cannot be checked`);
        out.commands.push(checked(env, argv, found, 'other'));
        return false;
      }
      if (inner.length === 0) {
        out.commands.push(checked(env, argv, found, 'builtin'));
        return false;
      }
      argv = inner;
      return true;
    };

    if (RULED_WRAPPERS.has(name)) {
      // `nohup`, `time` and `exec` need a rule themselves (Claude Code asks about them), and what
      // they run is checked as any command is.
      out.commands.push(checked(env, argv, found, 'other'));
      const rest = name === 'exec' ? skipOptions(args, /^-a$/, /^-[cl]+$/) : skipOptions(args, /^$/, /^-p$/);
      if (rest === 'unknown') {
        complex(`the options of \`${name}\` cannot be checked`);
        return out;
      }
      if (rest.length === 0) return out;
      argv = rest;
      continue;
    }
    if (name === 'timeout') {
      const rest = skipOptions(
        args,
        /^(-k|-s|--kill-after|--signal)$/,
        /^(-v|--verbose|--foreground|--preserve-status|--(kill-after|signal)=.+|-[ks].+)$/,
      );
      if (rest !== 'unknown' && rest.length > 0 && !/^\d+(\.\d+)?[smhd]?$/.test(rest[0]?.value ?? '')) {
        complex('the duration of `timeout` cannot be checked');
        out.commands.push(checked(env, argv, found, 'other'));
        return out;
      }
      if (transparent(rest === 'unknown' ? rest : rest.slice(1), name)) continue;
      return out;
    }
    if (name === 'nice') {
      if (transparent(skipOptions(args, /^(-n|--adjustment)$/, /^(-\d+|--adjustment=-?\d+|-n-?\d+)$/), name)) continue;
      return out;
    }
    if (name === 'stdbuf') {
      if (transparent(skipOptions(args, /^(-i|-o|-e)$/, /^(-[ioe][0-9A-Za-z]+|--(input|output|error)=\S+)$/), name))
        continue;
      return out;
    }
    if (name === 'command' || name === 'builtin') {
      if (name === 'command' && args.some((a) => /^-[pvV]*[vV]/.test(a.value))) {
        // `command -v` (Claude Code asks about it; `type` and `which` are reads).
        out.commands.push(checked(env, argv, found, 'other'));
        return out;
      }
      if (transparent(skipOptions(args, /^$/, /^-p$/), name)) continue;
      return out;
    }
    if (name === 'env') {
      const rest = skipOptions(args, /^(-u|--unset)$/, /^(-i|-0|--ignore-environment|--null|--unset=.+|-)$/);
      if (rest === 'unknown') {
        transparent(rest, name);
        return out;
      }
      let i = 0;
      while (i < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[i]?.value ?? '')) i++;
      env = [...env, ...rest.slice(0, i)];
      if (i === rest.length) {
        out.commands.push(checked(env, argv, found, 'other'));
        return out;
      }
      argv = rest.slice(i);
      continue;
    }
    if (name === 'xargs') {
      const rest = skipOptions(
        args,
        /^(-a|-d|-E|-I|-L|-n|-P|-s|--arg-file|--delimiter|--eof|--max-lines|--max-args|--max-procs|--max-chars|--process-slot-var)$/,
        /^(-0|-r|-t|-p|-x|-o|--null|--no-run-if-empty|--verbose|--interactive|--exit|--open-tty|-[iel].*|--[a-z-]+=.+|-[nLPsdEI]\S+)$/,
      );
      if (rest === 'unknown') {
        transparent(rest, name);
        return out;
      }
      const replace = replaceString(args);
      const inner = rest.length === 0 ? [staticWord('echo')] : rest;
      argv =
        replace !== undefined
          ? inner.map((w, i) => (i > 0 && w.value.includes(replace) ? DYNAMIC_WORD : w))
          : [...inner, DYNAMIC_WORD];
      continue;
    }
    if (name === 'sudo' || name === 'doas') {
      out.commands.push(checked(env, argv, found, 'other'));
      const rest = skipOptions(args, /^(-u|-g|-h|-p|-C|-D|-r|-t|-U|-T)$/, /^(-[AbEHnPSk]+|--[a-z-]+(=.+)?)$/);
      if (rest === 'unknown' || rest.length === 0) {
        if (rest === 'unknown') complex(`the options of \`${name}\` cannot be checked`);
        return out;
      }
      argv = rest;
      env = [];
      continue;
    }
    if (name === 'eval') {
      out.commands.push(checked(env, argv, found, 'other'));
      if (args.some((a) => a.dynamic)) complex('`eval` of text known only at run time cannot be checked');
      else out.nested.push({ source: args.map((a) => a.value).join(' '), offset: found.offset, via: 'eval' });
      return out;
    }
    if (name === 'trap') {
      out.commands.push(checked(env, argv, found, 'other'));
      const first = args[0];
      if (first && !first.value.startsWith('-')) {
        if (first.dynamic) complex('a `trap` action known only at run time cannot be checked');
        else out.nested.push({ source: first.value, offset: found.offset, via: 'trap' });
      }
      return out;
    }
    if (SHELLS.has(name)) {
      out.commands.push(checked(env, argv, found, 'other'));
      const c = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.value));
      const script = c === -1 ? undefined : args[c + 1];
      if (script && !script.dynamic) out.nested.push({ source: script.value, offset: found.offset, via: `${name} -c` });
      else if (script) complex(`\`${name} -c\` of text known only at run time cannot be checked`);
      else {
        const last = out.commands[out.commands.length - 1] as CheckedCommand;
        last.opaque = `\`${name}\` runs a script that is not part of the command`;
      }
      return out;
    }
    if (name === 'find') {
      out.commands.push(checked(env, argv, found, 'other'));
      for (let i = 0; i < args.length; i++) {
        const a = (args[i] as Word).value;
        if (/^-(delete|fprint0?|fprintf|fls)$/.test(a)) complex(`\`find ${a}\` changes files`);
        if (/^-(exec|execdir|ok|okdir)$/.test(a)) {
          const end = args.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
          const inner = args
            .slice(i + 1, end === -1 ? undefined : end)
            .map((w) => (w.value.includes('{}') ? DYNAMIC_WORD : w));
          if (end === -1) complex('`find -exec` without an end cannot be checked');
          if (inner.length > 0) {
            const sub = unwrapCommand({ ...found, env: [], argv: inner }, functions);
            out.commands.push(...sub.commands);
            out.nested.push(...sub.nested);
            out.tooComplex.push(...sub.tooComplex);
          }
          i = end === -1 ? args.length : end;
        }
      }
      return out;
    }
    if (OPAQUE_LAUNCHERS.has(name)) {
      out.commands.push(checked(env, argv, found, 'other', { opaque: `what \`${name}\` starts cannot be checked` }));
      return out;
    }
    if (name === 'set') {
      const unsafe = args.find(
        (a) =>
          a.dynamic ||
          !/^([-+][euxvCfnhbBEHPT]+|[-+]o|pipefail|errexit|nounset|xtrace|noclobber|noglob|verbose|errtrace|functrace|--)$/.test(
            a.value,
          ),
      );
      if (unsafe) complex(`\`set ${unsafe.value.replace(DYNAMIC, '…')}\` changes how the shell runs later commands`);
      // Every `set` needs a rule (Claude Code asks about `set -e` too).
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    if (STEERING_BUILTINS.has(name)) {
      if (
        name === 'let' ||
        name === 'coproc' ||
        name === 'alias' ||
        name === 'hash' ||
        name === 'enable' ||
        name === 'shopt'
      ) {
        complex(`\`${name}\` changes how the shell evaluates or finds later commands`);
      }
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    if (functions.has(head.value)) {
      // A call of a function the command defines: its body is checked where it is defined, and
      // the definition itself is asked about (analyze.ts), as in Claude Code.
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    if (name === 'wait' && args.some((a) => a.dynamic || /^-[a-zA-Z]*p/.test(a.value))) {
      // `wait -p NAME` assigns NAME, like `read` and `getopts`.
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    if (HARMLESS_BUILTINS.has(head.value) && env.length === 0) {
      out.commands.push(checked(env, argv, found, 'builtin'));
      return out;
    }
    if (name === 'cd' || name === 'pushd') {
      const target = operands(args)[0];
      if (args.some((a) => a.value === '-') || name !== 'cd' || (target && target.dynamic)) {
        complex(`\`${head.value}\` to a directory known only at run time`);
      }
      out.commands.push(
        checked(env, argv, found, 'cd', { paths: [{ word: target ?? staticWord('~'), access: 'read' }] }),
      );
      return out;
    }
    if (name === 'popd') {
      complex('`popd` returns to a directory known only at run time');
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    if (
      head.value !== name &&
      (READ_ONLY_NO_PATHS.has(name) || READ_ONLY_WITH_PATHS.has(name) || FILE_WRITE.has(name))
    ) {
      // `/bin/cat`: a path to a program is matched as written (rules see `/bin/cat`), and is not auto-allowed.
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    const writing = WRITING_OPTIONS[name];
    if (writing && args.some((a) => writing.test(a.value))) {
      out.commands.push(checked(env, argv, found, 'other'));
      return out;
    }
    if (READ_ONLY_NO_PATHS.has(name)) {
      out.commands.push(
        checked(env, argv, found, 'readOnly', {
          needsRule: env.length > 0,
          paths: optionFiles(name, args).map((word) => ({ word, access: 'read' as const })),
        }),
      );
      return out;
    }
    if (READ_ONLY_WITH_PATHS.has(name)) {
      let ops = operands(args);
      if (name === 'grep' || name === 'egrep' || name === 'fgrep') ops = grepFiles(args);
      // `uniq IN OUT` writes OUT; Claude Code asks about `uniq` with any file operand.
      if (name === 'uniq' && ops.length > 0) {
        out.commands.push(checked(env, argv, found, 'other'));
        return out;
      }
      out.commands.push(
        checked(env, argv, found, 'readOnly', {
          needsRule: env.length > 0,
          paths: [...ops, ...optionFiles(name, args)].map((word) => ({ word, access: 'read' as const })),
        }),
      );
      return out;
    }
    if (FILE_WRITE.has(name)) {
      out.commands.push(
        checked(env, argv, found, 'fileWrite', {
          paths: operands(args).map((word) => ({ word, access: 'write' as const })),
        }),
      );
      return out;
    }
    out.commands.push(checked(env, argv, found, 'other'));
    return out;
  }
  complex('too many nested wrappers');
  return out;
}

/** The files grep reads: operands after the pattern (or all operands with `-e`/`-f`), and `-f` files. */
function grepFiles(args: readonly Word[]): Word[] {
  const files: Word[] = [];
  const positional: Word[] = [];
  let patternGiven = false;
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Word;
    if (!ended && a.value === '--') {
      ended = true;
      continue;
    }
    if (!ended && a.value.startsWith('-') && a.value !== '-') {
      const opt = a.value.split('=')[0] as string;
      if (/^(-e|--regexp)/.test(a.value)) patternGiven = true;
      if (/^(-f|--file)/.test(a.value)) {
        patternGiven = true;
        const v = a.value.includes('=')
          ? staticWord(a.value.slice(a.value.indexOf('=') + 1))
          : a.value.length > 2 && !a.value.startsWith('--')
            ? staticWord(a.value.slice(2))
            : args[i + 1];
        if (v) files.push(v);
      }
      if (GREP_VALUE_OPTIONS.has(opt) && !a.value.includes('=')) i++;
      continue;
    }
    positional.push(a);
  }
  return [...files, ...(patternGiven ? positional : positional.slice(1))];
}

/** The replacement string of `xargs -I R` / `-iR` / `--replace[=R]` (`{}` by default for -i). */
function replaceString(args: readonly Word[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = (args[i] as Word).value;
    if (v === '-I') return args[i + 1]?.value ?? '{}';
    if (v.startsWith('-I')) return v.slice(2);
    if (v === '-i' || v === '--replace') return '{}';
    if (v.startsWith('-i')) return v.slice(2);
    if (v.startsWith('--replace=')) return v.slice('--replace='.length);
  }
  return undefined;
}
