/**
 * Finds every simple command a bash script can run, every file it redirects to or from, and
 * everything that cannot be checked before it runs. Works on the tree of `parse.ts`; pure.
 *
 * The walk is exhaustive by construction: each node type it knows has a handler that visits all of
 * its named children, and any other node type (or a parse error) is recorded in `tooComplex`. So a
 * command can hide nowhere: lists, pipelines, `&`, subshells, `{ }`, command and process
 * substitution (also inside strings, here-documents, assignments, `${…}`), loops, conditionals,
 * `case`, function bodies, redirections and their targets all lead to it.
 */
import type { SyntaxNode } from './parse';
import type { Word } from '../../../config-files/shell-words';
import {
  DYNAMIC,
  DYNAMIC_WORD,
  ansiCText,
  concatWords,
  doubleQuotedText,
  staticWord,
  unquotedWord,
  hasBraceExpansion,
} from '../../../config-files/shell-words';

/** A simple command found in the script (before wrappers such as `timeout` are looked into). */
export interface FoundCommand {
  /** `NAME=value` assignments in front of the command (`FOO=1 git status`). */
  env: Word[];
  /** Command name and arguments. */
  argv: Word[];
  /** Source text, for messages. */
  source: string;
  /** Position in the script (characters), to order it against `cd`. */
  offset: number;
}

/** A file the script opens through a redirection. */
export interface FoundRedirect {
  target: Word;
  access: 'read' | 'write';
  /** The operator, e.g. `>` or `2>>`. */
  op: string;
  offset: number;
}

/** Something in the script that cannot be checked before it runs. */
export interface Complexity {
  reason: string;
  offset: number;
}

/** What a script does, as far as can be known without running it. */
export interface ScriptFacts {
  commands: FoundCommand[];
  redirects: FoundRedirect[];
  tooComplex: Complexity[];
  /** Names of functions the script defines (their bodies are analyzed like any other code). */
  functions: Set<string>;
  /** Variables the script assigns outside a command prefix (`X=1; …`, `for X in …`), with positions. */
  assigned: Array<{ name: string; offset: number }>;
}

/**
 * Variables whose assignment changes how the shell finds, splits or runs later commands, or what
 * the programs it starts do (whether or not they are exported yet): the prefix form
 * (`PATH=x cmd`), a bare assignment (`PATH=x; cmd`), a loop variable and `declare`/`unset` of them
 * are all asked about. `AGENT_RUNNER_*` names are the runner's own.
 */
const STEERING_VARIABLE = new RegExp(
  '^(' +
    [
      // bash itself
      'PATH|IFS|BASH_ENV|ENV|CDPATH|HOME|PWD|OLDPWD|SHELLOPTS|BASHOPTS|POSIXLY_CORRECT|BASH_COMPAT',
      'PS4|PROMPT_COMMAND|GLOBIGNORE|BASH_XTRACEFD|EXECIGNORE|BASH_ALIASES|BASH_CMDS|BASH_LOADABLES_PATH',
      'BASH_FUNC_\\w*',
      // the dynamic loader, git, the runner
      'LD_\\w*|DYLD_\\w*|GIT_\\w*|AGENT_RUNNER_\\w*',
      // programs that run code or commands a variable names
      'NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB',
      'JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|PAGER|MANPAGER|EDITOR|VISUAL|SSH_ASKPASS|SUDO_ASKPASS|LESSOPEN|LESSCLOSE',
    ].join('|') +
    ')$',
);

/**
 * Names a function must not take (nor a path such as `/bin/pwd`): bash's reserved words and builtins. A function named `cd`,
 * `pwd`, `builtin`, `command` or `trap` replaces the shell's own for the rest of the script (and
 * for whatever else runs in that shell), so what such a name does can't be read from the command.
 */
const SHELL_OWN_NAME = new Set(
  [
    // reserved words
    'if then else elif fi case esac for select while until do done in function time coproc { } ! [[ ]]',
    // builtins (bash 5.2, `compgen -b`)
    '. : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs',
    'disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local',
    'logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend',
    'test times trap true type typeset ulimit umask unalias unset wait',
  ]
    .join(' ')
    .split(' '),
);

/** Leaves of arithmetic that are literal (no variable, so no recursive evaluation). */
const ARITHMETIC_LITERAL =
  /^(?:[0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z]+|[-+*/%^&|~!<>=?:(),]+|<<|>>|\*\*|&&|\|\||[<>=!]=|\$\(\(|\)\)|\(\(|\$\[|\])$/;

const STATEMENT_TYPES = new Set([
  'command',
  'pipeline',
  'list',
  'subshell',
  'compound_statement',
  'redirected_statement',
  'negated_command',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'variable_assignments',
  'test_command',
]);

/** Walks one parsed script and collects its facts. */
export class ScriptWalker {
  readonly facts: ScriptFacts = { commands: [], redirects: [], tooComplex: [], functions: new Set(), assigned: [] };

  constructor(private readonly base = 0) {}

  private complex(node: SyntaxNode, reason: string): void {
    this.facts.tooComplex.push({ reason, offset: this.base + node.startIndex });
  }

  /** Entry point: the `program` node. */
  program(root: SyntaxNode): ScriptFacts {
    if (root.hasError) this.findErrors(root);
    this.findBackground(root);
    this.statements(root.namedChildren);
    return this.facts;
  }

  /**
   * The `&` operator: what it starts runs on past the end of this call (and of the check), as
   * Claude Code says when it asks about it.
   */
  private findBackground(node: SyntaxNode): void {
    for (const c of node.children) {
      if (!c) continue;
      if (!c.isNamed && c.type === '&') {
        this.complex(c, 'the `&` operator runs a command in the background, past the end of this call');
        return;
      }
      if (c.childCount > 0) this.findBackground(c);
    }
  }

  private findErrors(node: SyntaxNode): void {
    if (node.type === 'ERROR' || node.isMissing) {
      this.complex(node, `the command does not parse as bash near \`${node.text.slice(0, 40)}\``);
      return;
    }
    for (const c of node.children) if (c && c.hasError) this.findErrors(c);
    if (node.children.some((c) => c?.isMissing)) this.complex(node, 'the command is incomplete');
  }

  private statements(nodes: readonly (SyntaxNode | null)[]): void {
    for (const n of nodes) if (n) this.statement(n);
  }

  private statement(node: SyntaxNode): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'program':
      case 'list':
      case 'pipeline':
      case 'subshell':
      case 'negated_command':
      case 'do_group':
      case 'else_clause':
      case 'elif_clause':
        return this.statements(node.namedChildren);
      case 'compound_statement':
        return this.compound(node);
      case 'if_statement':
      case 'while_statement':
        return this.statements(node.namedChildren);
      case 'for_statement':
        return this.forStatement(node);
      case 'c_style_for_statement':
        return this.complex(node, 'a counting for loop evaluates arithmetic, which can run commands');
      case 'case_statement':
        return this.caseStatement(node);
      case 'redirected_statement':
        return this.redirected(node);
      case 'function_definition':
        return this.functionDefinition(node);
      case 'command':
        return this.command(node);
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node);
      case 'variable_assignment':
        this.bareAssignment(node);
        return;
      case 'variable_assignments':
        for (const c of node.namedChildren) if (c) this.bareAssignment(c);
        return;
      case 'test_command':
        return this.testCommand(node);
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        return this.redirect(node);
      case 'ERROR':
        return; // reported by findErrors
      default:
        if (STATEMENT_TYPES.has(node.type)) return this.statements(node.namedChildren);
        return this.complex(node, `\`${node.type}\` cannot be checked before it runs`);
    }
  }

  private compound(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (STATEMENT_TYPES.has(c.type) || c.type === 'comment' || c.type === 'redirected_statement') this.statement(c);
      // `(( … ))` is parsed as a compound statement holding expressions.
      else this.arithmetic(c);
    }
  }

  private forStatement(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'variable_name') {
        if (STEERING_VARIABLE.test(c.text))
          this.complex(c, `the loop assigns ${c.text}, which changes how commands run`);
        this.facts.assigned.push({ name: c.text, offset: this.base + c.startIndex });
      } else if (c.type === 'do_group') this.statement(c);
      else this.word(c);
    }
  }

  private caseStatement(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type !== 'case_item') {
        this.word(c);
        continue;
      }
      for (const item of c.namedChildren) {
        if (!item) continue;
        if (STATEMENT_TYPES.has(item.type) || item.type === 'comment') this.statement(item);
        else this.word(item);
      }
    }
  }

  private redirected(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type.endsWith('_redirect')) this.redirect(c);
      else this.statement(c);
    }
  }

  private functionDefinition(node: SyntaxNode): void {
    const name = node.childForFieldName('name');
    if (name) this.facts.functions.add(name.text);
    if (name && SHELL_OWN_NAME.has(name.text)) {
      this.complex(name, `the command defines a function named \`${name.text}\`, which replaces the shell's own`);
    } else if (name && name.text.includes('/')) {
      this.complex(
        name,
        `the command defines a function named \`${name.text}\`, which replaces the program at that path`,
      );
    } else {
      // Its body is checked below, but what calls it and when is not (Claude Code asks too).
      this.complex(node, `the command defines a function${name ? ` (\`${name.text}\`)` : ''}`);
    }
    for (const c of node.namedChildren) {
      if (!c || c === name || c.equals(name as SyntaxNode)) continue;
      if (c.type.endsWith('_redirect')) this.redirect(c);
      else this.statement(c);
    }
  }

  private command(node: SyntaxNode): void {
    const env: Word[] = [];
    const argv: Word[] = [];
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'variable_assignment') env.push(this.assignment(c));
      else if (c.type === 'command_name') argv.push(this.word(c.namedChildren[0] ?? c));
      else if (c.type.endsWith('_redirect')) this.redirect(c);
      else if (c.type === 'subshell') this.statement(c);
      else argv.push(this.word(c));
    }
    if (argv.length === 0) return;
    this.facts.commands.push({ env, argv, source: node.text, offset: this.base + node.startIndex });
  }

  private declaration(node: SyntaxNode): void {
    const argv: Word[] = [staticWord(node.children[0]?.text ?? node.type)];
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'variable_assignment') argv.push(this.assignment(c));
      else if (c.type === 'variable_name') {
        if (STEERING_VARIABLE.test(c.text)) this.complex(c, `\`${argv[0]?.value}\` changes ${c.text}`);
        argv.push(staticWord(c.text));
      } else if (c.type.endsWith('_redirect')) this.redirect(c);
      else argv.push(this.word(c));
    }
    this.facts.commands.push({ env: [], argv, source: node.text, offset: this.base + node.startIndex });
  }

  /** An assignment standing alone (`X=1; …`): it changes the shell's variables for later commands. */
  private bareAssignment(node: SyntaxNode): void {
    if (node.type !== 'variable_assignment') {
      this.statement(node);
      return;
    }
    const name = node.childForFieldName('name');
    if (name?.type === 'variable_name')
      this.facts.assigned.push({ name: name.text, offset: this.base + node.startIndex });
    this.assignment(node);
  }

  /** A `NAME=value` assignment; returns it as a word. */
  private assignment(node: SyntaxNode): Word {
    const name = node.childForFieldName('name');
    const value = node.childForFieldName('value');
    const nameText = name?.type === 'variable_name' ? name.text : (name?.text ?? '');
    if (!name || name.type !== 'variable_name') {
      // `a[$(cmd)]=1`: subscripts are evaluated as arithmetic.
      this.complex(node, 'an assignment to an array element evaluates its subscript, which can run commands');
      if (name) this.word(name);
    } else if (STEERING_VARIABLE.test(nameText)) {
      this.complex(node, `assigning ${nameText} changes how later commands are found or run`);
    }
    const operator = node.children.find((c) => c && !c.isNamed && (c.type === '=' || c.type === '+='))?.type ?? '=';
    const v = value ? this.word(value) : staticWord('');
    return concatWords([staticWord(nameText + operator), v]);
  }

  private testCommand(node: SyntaxNode): void {
    this.testExpression(node);
  }

  private testExpression(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'binary_expression' || c.type === 'unary_expression' || c.type === 'parenthesized_expression') {
        const op = c.childForFieldName('operator')?.text ?? '';
        if (/^-(eq|ne|lt|le|gt|ge)$/.test(op)) {
          // [[ x -eq y ]] evaluates both sides as arithmetic: a variable can hold `a[$(cmd)]`.
          for (const side of c.namedChildren) {
            if (side && side.type !== 'test_operator' && !/^-?[0-9]+$/.test(side.text)) {
              this.complex(side, 'a numeric test on a non-number evaluates it as arithmetic, which can run commands');
            }
          }
        }
        this.testExpression(c);
      } else if (c.type === 'test_operator' || c.type === 'regex' || c.type === 'extglob_pattern') {
        continue;
      } else if (c.type === 'redirected_statement') {
        this.statement(c);
      } else this.word(c);
    }
  }

  /** Arithmetic (`$(( ))`, `(( ))`): only literal arithmetic can be checked. */
  private arithmetic(node: SyntaxNode): void {
    if (node.childCount === 0) {
      if (!ARITHMETIC_LITERAL.test(node.text)) {
        this.complex(node, 'arithmetic on variables can run commands hidden in their values');
      }
      return;
    }
    if (node.type === 'command_substitution') {
      this.word(node);
      this.complex(node, 'arithmetic on command output can run commands hidden in it');
      return;
    }
    for (const c of node.children) if (c) this.arithmetic(c);
  }

  private redirect(node: SyntaxNode): void {
    const offset = this.base + node.startIndex;
    if (node.type === 'herestring_redirect') {
      for (const c of node.namedChildren) if (c && c.type !== 'file_descriptor') this.word(c);
      return;
    }
    if (node.type === 'heredoc_redirect') {
      for (const c of node.namedChildren) {
        if (!c) continue;
        if (c.type === 'heredoc_body') this.heredocBody(c);
        else if (c.type === 'heredoc_start' || c.type === 'heredoc_end' || c.type === 'file_descriptor') continue;
        else if (c.type.endsWith('_redirect')) this.redirect(c);
        else if (STATEMENT_TYPES.has(c.type)) this.statement(c);
        else this.word(c);
      }
      return;
    }
    // file_redirect: [descriptor] operator destination…
    const op = node.children
      .filter((c) => c && !c.isNamed)
      .map((c) => c?.type)
      .join('');
    const fd = node.childForFieldName('descriptor')?.text ?? '';
    const dests = node.childrenForFieldName('destination').filter((d): d is SyntaxNode => d !== null);
    const words = dests.map((d) => this.word(d));
    if (op === '>&-' || op === '<&-') return;
    const target = words.length === 1 ? (words[0] as Word) : concatWords(words);
    if ((op === '>&' || op === '<&') && /^[0-9]+-?$|^-$/.test(target.value)) return; // descriptor duplication
    if (op === '>&' || op === '<&') {
      if (target.dynamic)
        this.complex(node, `the redirection \`${node.text}\` goes to a descriptor or file known only at run time`);
    }
    const access = op === '<' || op === '<&' ? 'read' : 'write';
    this.facts.redirects.push({ target, access, op: fd + op, offset });
  }

  private heredocBody(node: SyntaxNode): void {
    for (const c of node.namedChildren) {
      if (!c || c.type === 'heredoc_content') continue;
      this.word(c);
    }
  }

  /**
   * Evaluates a word-like node to its value, walking every command it contains (command and
   * process substitution run even when the word's value is not used).
   */
  word(node: SyntaxNode): Word {
    switch (node.type) {
      case 'word':
        return unquotedWord(node.text);
      case 'number':
        if (node.namedChildCount > 0) return this.parts(node);
        return staticWord(node.text);
      case 'raw_string':
        return staticWord(node.text.slice(1, -1));
      case 'ansi_c_string':
        return staticWord(ansiCText(node.text.slice(2, -1)));
      case 'string':
      case 'translated_string':
        return this.doubleQuoted(node);
      case 'string_content':
        return staticWord(doubleQuotedText(node.text));
      case 'concatenation':
        return this.parts(node);
      case 'simple_expansion':
        return DYNAMIC_WORD;
      case 'expansion':
        this.expansion(node);
        return DYNAMIC_WORD;
      case 'command_substitution':
      case 'process_substitution':
        this.statements(node.namedChildren.filter((c) => c && !c.type.endsWith('_redirect')));
        for (const c of node.namedChildren) if (c?.type.endsWith('_redirect')) this.redirect(c);
        return DYNAMIC_WORD;
      case 'arithmetic_expansion':
        this.arithmetic(node);
        return DYNAMIC_WORD;
      case 'brace_expression':
      case 'extglob_pattern':
        return DYNAMIC_WORD;
      case 'array':
        this.parts(node);
        return DYNAMIC_WORD;
      case 'variable_name':
      case 'regex':
      case 'special_variable_name':
        return staticWord(node.text);
      case 'command_name':
        return this.word(node.namedChildren[0] ?? node);
      default:
        if (STATEMENT_TYPES.has(node.type)) {
          this.statement(node);
          return DYNAMIC_WORD;
        }
        this.complex(node, `\`${node.type}\` cannot be checked before it runs`);
        return DYNAMIC_WORD;
    }
  }

  private parts(node: SyntaxNode): Word {
    const children = node.namedChildren.filter((c): c is SyntaxNode => c !== null);
    const words = children.map((c) => this.word(c));
    // The grammar splits `{/tmp/x,}` into `{`, `/tmp/x` and `,}`: brace expansion is a property
    // of the whole word's unquoted text, so it is looked for there, not part by part.
    if (node.type === 'concatenation') {
      const unquoted = children.map((c) => (c.type === 'word' ? c.text : DYNAMIC)).join('');
      if (hasBraceExpansion(unquoted)) return DYNAMIC_WORD;
    }
    return concatWords(words);
  }

  private doubleQuoted(node: SyntaxNode): Word {
    const inner = node.type === 'translated_string' ? (node.namedChildren[0] ?? node) : node;
    if (inner !== node && inner.type === 'string') return this.doubleQuoted(inner);
    const named = inner.namedChildren.filter((c): c is SyntaxNode => c !== null);
    if (named.length === 0) return staticWord(doubleQuotedText(inner.text.replace(/^\$?"|"$/g, '')));
    // Text between named children (tree-sitter leaves some literal text unnamed) is literal.
    const parts: Word[] = [];
    let pos = inner.startIndex + (inner.text.startsWith('$"') ? 2 : 1);
    const end = inner.endIndex - 1;
    const src = inner.text;
    const at = (i: number): string => src.slice(i - inner.startIndex);
    for (const c of named) {
      if (c.startIndex > pos) parts.push(staticWord(doubleQuotedText(at(pos).slice(0, c.startIndex - pos))));
      parts.push(this.word(c));
      pos = c.endIndex;
    }
    if (end > pos) parts.push(staticWord(doubleQuotedText(at(pos).slice(0, end - pos))));
    return concatWords(parts);
  }

  private expansion(node: SyntaxNode): void {
    const text = node.text;
    if (/@P\}$/.test(text)) {
      this.complex(node, '`${var@P}` expands its value as a prompt, which can run commands');
    }
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'variable_name' || c.type === 'special_variable_name' || c.type === 'regex') continue;
      if (c.type === 'subscript') {
        const index = c.childForFieldName('index')?.text ?? '';
        if (!/^(@|\*|[0-9]+)$/.test(index)) {
          this.complex(c, 'an array subscript is evaluated as arithmetic, which can run commands');
        }
        continue;
      }
      this.word(c);
    }
  }
}

/** True when a word's value is fully known. */
export function isStatic(w: Word): boolean {
  return !w.dynamic && !w.value.includes(DYNAMIC);
}
