/**
 * Batch task files: JSONL, one task per line (`{"id": …, "prompt": …, …}`), checked with zod; a
 * bad line is reported with its line number and skipped, the others run. See docs/batch.md.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { PERMISSION_MODES } from '../common/permissions';
import { splitToolList } from '../common/tool-list';
import { TOOL_NAMES } from '../common/tools';
import type { TurnOptions } from '../common/turn';
import { resolveModelAlias } from '../config/model-aliases';

/** Largest accepted task file line (characters). */
export const MAX_TASK_LINE_CHARS = 1_000_000;

const toolList = z.union([z.string(), z.array(z.string())]).transform((v) => splitToolList(Array.isArray(v) ? v : [v]));

/** One line of a task file, as written (validated with zod; unknown fields are errors). */
export const BatchTaskLineSchema = z
  .strictObject({
    /** Unique in the file; with the batch id it names the task's session. */
    id: z
      .union([z.string(), z.number().int()])
      .transform((v) => String(v))
      .pipe(
        z
          .string()
          .min(1, { error: 'must not be empty' })
          .max(256, { error: 'must be at most 256 characters' })
          .regex(/^[^\u0000-\u001f\u007f]+$/, { error: 'must not contain control characters' }),
      ),
    prompt: z.string().refine((s) => s.trim() !== '', { error: 'must be a non-empty string' }),
    /** Working directory of the task (relative paths: against the task file's directory). */
    cwd: z.string().min(1).optional(),
    /** Same as `cwd` (a repository checkout). */
    repo: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    maxTurns: z.int().positive().optional(),
    maxBudgetUsd: z.number().positive().optional(),
    taskBudget: z.int().positive().optional(),
    permissionMode: z.enum(PERMISSION_MODES).optional(),
    allowedTools: toolList.optional(),
    disallowedTools: toolList.optional(),
    tools: toolList.optional(),
    systemPrompt: z.string().optional(),
    appendSystemPrompt: z.string().optional(),
    /** Free-form data copied to the task's result line. */
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((t, ctx) => {
    if (t.cwd !== undefined && t.repo !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['repo'], message: 'give either cwd or repo, not both' });
    }
    const unknown = (t.tools ?? []).filter((n) => !TOOL_NAMES.includes(n));
    if (unknown.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['tools'],
        message: `unknown tool(s) ${unknown.join(', ')}; available: ${TOOL_NAMES.join(', ')}`,
      });
    }
  });

/** A valid task, with its line number and absolute working directory. */
export interface BatchTask {
  id: string;
  /** 1-based line in the task file. */
  line: number;
  prompt: string;
  cwd: string;
  /** Per-task turn options (override the batch defaults). */
  options: Partial<TurnOptions> & { limits?: TurnOptions['limits'] };
  metadata?: Record<string, unknown>;
}

/** A line that was skipped. */
export interface TaskLineError {
  line: number;
  message: string;
}

/** What {@link parseTaskFile} found. */
export interface ParsedTaskFile {
  tasks: BatchTask[];
  errors: TaskLineError[];
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${k}: unknown field`).join('; ');
      const path = i.path.map(String).join('.');
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join('; ');
}

/**
 * Parses a JSONL task file: one JSON object per line; blank lines and lines starting with `#`
 * are ignored. A bad line (not JSON, fails the schema, duplicate id, missing directory) is
 * reported with its 1-based line number and skipped; the others are returned in file order.
 * @param baseDir directory that relative `cwd`/`repo` paths resolve against (the file's)
 * @param defaultCwd working directory of tasks without `cwd`/`repo`
 */
export function parseTaskFile(text: string, baseDir: string, defaultCwd: string): ParsedTaskFile {
  const tasks: BatchTask[] = [];
  const errors: TaskLineError[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (trimmed.length > MAX_TASK_LINE_CHARS) {
      errors.push({ line, message: `line is longer than ${MAX_TASK_LINE_CHARS} characters` });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (e) {
      errors.push({ line, message: `not valid JSON (${(e as Error).message})` });
      return;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      errors.push({ line, message: 'expected a JSON object' });
      return;
    }
    const r = BatchTaskLineSchema.safeParse(json);
    if (!r.success) {
      const id = (json as { id?: unknown }).id;
      errors.push({
        line,
        message: `${typeof id === 'string' || typeof id === 'number' ? `task ${JSON.stringify(id)}: ` : ''}${formatIssues(r.error.issues)}`,
      });
      return;
    }
    const t = r.data;
    const first = seen.get(t.id);
    if (first !== undefined) {
      errors.push({ line, message: `task ${JSON.stringify(t.id)}: duplicate id (first on line ${first})` });
      return;
    }
    const dir = t.cwd ?? t.repo;
    const cwd = dir === undefined ? defaultCwd : isAbsolute(dir) ? dir : resolve(baseDir, dir);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
      errors.push({
        line,
        message: `task ${JSON.stringify(t.id)}: ${t.cwd !== undefined ? 'cwd' : 'repo'} ${cwd} is not a directory`,
      });
      return;
    }
    seen.set(t.id, line);
    const limits = {
      ...(t.maxTurns !== undefined ? { maxTurns: t.maxTurns } : {}),
      ...(t.maxBudgetUsd !== undefined ? { maxBudgetUsd: t.maxBudgetUsd } : {}),
      ...(t.taskBudget !== undefined ? { taskBudget: t.taskBudget } : {}),
    };
    tasks.push({
      id: t.id,
      line,
      prompt: t.prompt,
      cwd,
      options: {
        ...(t.model !== undefined ? { model: resolveModelAlias(t.model) } : {}),
        ...(Object.keys(limits).length ? { limits } : {}),
        ...(t.permissionMode !== undefined ? { permissionMode: t.permissionMode } : {}),
        ...(t.allowedTools !== undefined ? { allowedTools: t.allowedTools } : {}),
        ...(t.disallowedTools !== undefined ? { disallowedTools: t.disallowedTools } : {}),
        ...(t.tools !== undefined ? { tools: t.tools } : {}),
        ...(t.systemPrompt !== undefined ? { systemPrompt: t.systemPrompt } : {}),
        ...(t.appendSystemPrompt !== undefined ? { appendSystemPrompt: t.appendSystemPrompt } : {}),
      },
      ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
    });
  });
  return { tasks, errors };
}
