/**
 * The shape of a Claude Code settings file (`settings.json`), as far as the runner reads it:
 * `permissions` (allow, deny, ask, defaultMode, additionalDirectories), `env`, `model`,
 * `effortLevel` and `alwaysThinkingEnabled` are checked; every other section (`hooks`, `statusLine`, …) is kept as written for the modules that
 * read it. Pure.
 */
import { z } from 'zod';
import { PERMISSION_MODES } from '../common/permissions';

const ruleList = z.array(z.string({ error: 'expected a rule string, e.g. "Bash(git *)"' }), {
  error: 'expected an array of rule strings',
});

/** `permissions` of a settings file. Unknown keys (e.g. `disableBypassPermissionsMode`) are kept. */
export const PermissionsSettingsSchema = z.looseObject({
  allow: ruleList.optional(),
  deny: ruleList.optional(),
  ask: ruleList.optional(),
  defaultMode: z.enum(PERMISSION_MODES, { error: `expected one of ${PERMISSION_MODES.join(', ')}` }).optional(),
  additionalDirectories: z
    .array(z.string({ error: 'expected a directory path' }), { error: 'expected an array of directory paths' })
    .optional(),
});

/** One settings file. */
export const SettingsFileSchema = z.looseObject({
  permissions: PermissionsSettingsSchema.optional(),
  env: z
    .record(z.string(), z.string({ error: 'expected a string value (environment variables are strings)' }), {
      error: 'expected an object of NAME: "value" pairs',
    })
    .optional(),
  model: z.string({ error: 'expected a model id string' }).min(1, { error: 'expected a model id string' }).optional(),
  /** Effort of every turn unless a flag or `CLAUDE_CODE_EFFORT_LEVEL` says (an unknown level is warned about and ignored). */
  effortLevel: z.string({ error: 'expected an effort level string (low, medium, high, xhigh, max)' }).optional(),
  /** `false` turns thinking off for the models that can (a thinking budget); 5.x models think anyway. */
  alwaysThinkingEnabled: z.boolean({ error: 'expected true or false' }).optional(),
  /** Parsed loosely here; its schema lives with the hooks (src/config-files/hooks.ts). */
  hooks: z.unknown().optional(),
});

/** A parsed settings file. */
export type SettingsFile = z.infer<typeof SettingsFileSchema>;
