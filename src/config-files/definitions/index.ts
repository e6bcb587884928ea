/** Commands, skills, agents and plugins a session's user, repository and plugins define (see types.ts). */
export type { AgentDefinition, CommandDefinition, DefinitionScope, Definitions, PluginInfo } from './types';
export { DEFINITIONS_VERSION, emptyDefinitions } from './types';
export type { LoadDefinitionsOptions, LoadedDefinitions } from './catalog';
export { findCommand, loadDefinitions, modelInvocable, PluginError } from './catalog';
export type { PluginSettings } from './plugins';
export { hasArgumentPlaceholder, splitArguments, substituteArguments } from './arguments';
export { parseFrontmatter } from './frontmatter';
