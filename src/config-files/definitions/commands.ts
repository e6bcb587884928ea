/**
 * Custom slash commands and skills from their directories, as Claude Code 2.1.328 names and reads
 * them: `commands/<a>/<b>.md` is `/a:b`; `skills/<name>/SKILL.md` is the skill `name`; a
 * plugin's are prefixed with `<plugin>:`. Frontmatter fields: `description`, `argument-hint`,
 * `allowed-tools`, `model`, `disable-model-invocation` (skills also `name`).
 */
import type { CommandDefinition, DefinitionScope } from './types';
import { markdownFiles, skillFiles } from './files';
import { firstLine, flagField, parseFrontmatter, textField, toolListField } from './frontmatter';

/** Where a directory's definitions come from. */
export interface DefinitionOrigin {
  scope: DefinitionScope;
  /** Plugin name: the definitions' names get `<plugin>:` in front. */
  plugin?: string;
  /**
   * Directories the files' real paths must be inside (src/config-files/safe-read.ts): the
   * project's for its files, the home and config directory for the user's, the plugin's own.
   */
  roots: readonly string[];
}

function named(origin: DefinitionOrigin, name: string): string {
  return origin.plugin !== undefined ? `${origin.plugin}:${name}` : name;
}

/** One definition from its file's text. */
export function commandFromText(
  kind: CommandDefinition['kind'],
  name: string,
  text: string,
  file: { path: string; baseDir?: string },
  origin: DefinitionOrigin,
): CommandDefinition {
  const { data, body } = parseFrontmatter(text);
  const description = textField(data['description']) || firstLine(body);
  const model = textField(data['model']);
  return {
    kind,
    name,
    description,
    argumentHint: textField(data['argument-hint']),
    allowedTools: toolListField(data['allowed-tools']),
    ...(model !== '' && model !== 'inherit' ? { model } : {}),
    disableModelInvocation: flagField(data['disable-model-invocation']),
    body,
    path: file.path,
    ...(file.baseDir !== undefined ? { baseDir: file.baseDir } : {}),
    scope: origin.scope,
    ...(origin.plugin !== undefined ? { plugin: origin.plugin } : {}),
  };
}

/** The commands under a `commands` directory (subfolders are `:` namespaces). */
export function loadCommandDir(dir: string, origin: DefinitionOrigin, warn: (m: string) => void): CommandDefinition[] {
  return markdownFiles(dir, origin.roots, warn).map((f) =>
    commandFromText('command', named(origin, f.rel.split('/').join(':')), f.text, f, origin),
  );
}

/** The skills under a `skills` directory (`<name>/SKILL.md`; the frontmatter's `name` wins). */
export function loadSkillDir(dir: string, origin: DefinitionOrigin, warn: (m: string) => void): CommandDefinition[] {
  return skillFiles(dir, origin.roots, warn).map((f) => {
    const { data } = parseFrontmatter(f.text);
    const own = textField(data['name']);
    return commandFromText('skill', named(origin, own !== '' ? own : f.rel), f.text, f, origin);
  });
}
