/**
 * Which tools are deferred, against what Claude Code 2.1.328 did in the deferral-matrix recording
 * (test/conformance/recordings/claude-2.1.328/deferral-matrix/params.json): for every variant,
 * whether ToolSearch is offered and how many MCP tools go inline. The built-in tools differ (the
 * runner has none of the ones Claude Code defers), so they are compared through the MCP tools.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deferralPlan, toolSearchModeOf } from '../../../../src/common/session-tools';
import { loadedToolNames, offeredTools } from '../../../../src/activities/session-tools/offered-tools';
import { toolsForModel } from '../../../../src/activities/tools/registry';
import type { ModelToolSpec } from '../../../../src/activities/tools/registry';
import type { TranscriptEntry } from '../../../../src/common/transcript';

const PARAMS = join(__dirname, '../../../conformance/recordings/claude-2.1.328/deferral-matrix/params.json');
const recorded = JSON.parse(readFileSync(PARAMS, 'utf8')) as Record<string, { requests: Array<{ tools: string[] }> }>;

const mcp = (n: number): ModelToolSpec[] =>
  Array.from({ length: n }, (_, i) => ({
    name: `mcp__s__t${i}`,
    description: `Tool number ${i}, a fairly long description of what it does. `.repeat(8),
    input_schema: { type: 'object' as const, properties: { value: { type: 'string', description: 'x'.repeat(300) } } },
  }));

describe('deferral (ToolSearch), as Claude Code 2.1.328 recorded it', () => {
  const cases = Object.entries(recorded).flatMap(([id, v]) => {
    const m = /^(ENABLE_TOOL_SEARCH (?:unset|=(\S+))), (no MCP|3 MCP tools|60 MCP tools)$/.exec(id);
    if (!m) return [];
    const env = id.startsWith('ENABLE_TOOL_SEARCH unset') ? undefined : m[2];
    const n = m[3] === 'no MCP' ? 0 : m[3] === '3 MCP tools' ? 3 : 60;
    const tools = v.requests[0]?.tools ?? [];
    return [
      {
        id,
        env,
        n,
        toolSearch: tools.includes('ToolSearch'),
        inlineMcp: tools.filter((t) => t.startsWith('mcp__') && !t.includes('defer_loading')).length,
      },
    ];
  });

  test.each(cases.filter((c) => c.n > 0))('$id: ToolSearch offered = claude, MCP tools inline = claude', (c) => {
    // `auto` without :N keeps tools inline in Claude Code for 60 tools too (its reminder quirk aside).
    const o = offeredTools({
      builtins: toolsForModel(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']),
      skills: false,
      extra: [],
      mcp: mcp(c.n),
      mode: toolSearchModeOf(c.env),
      model: 'claude-sonnet-5-5',
      contextWindow: 200_000,
    });
    expect({
      toolSearch: o.tools.some((t) => t.name === 'ToolSearch'),
      inlineMcp: o.tools.filter((t) => t.name.startsWith('mcp__')).length,
    }).toEqual({
      toolSearch: c.toolSearch,
      inlineMcp: c.inlineMcp,
    });
  });

  test('no deferral: --tools without ToolSearch, --disallowedTools ToolSearch, a model without tool_reference (claude-3-5-haiku)', () => {
    const base = { mode: 'on', candidates: [{ name: 'mcp__a__b', chars: 100, mcp: true }], contextWindow: 200_000 };
    expect(deferralPlan({ ...base, model: 'claude-sonnet-5-5' }).active).toBe(true);
    expect(deferralPlan({ ...base, model: 'claude-haiku-4-5' }).active).toBe(true);
    expect(deferralPlan({ ...base, model: 'claude-3-5-haiku-20241022' }).active).toBe(false);
    expect(deferralPlan({ ...base, model: 'claude-sonnet-5-5', listedTools: ['Read'] }).active).toBe(false);
    expect(deferralPlan({ ...base, model: 'claude-sonnet-5-5', disallowed: ['ToolSearch'] }).active).toBe(false);
  });

  test('toolSearchModeOf: ENABLE_TOOL_SEARCH values', () => {
    expect([undefined, 'true', 'false', 'auto', 'auto:1', 'auto:50', 'weird'].map(toolSearchModeOf)).toEqual([
      'on',
      'on',
      'off',
      'auto:10',
      'auto:1',
      'auto:50',
      'on',
    ]);
  });

  test('loaded tools come from the ToolSearch results on the chain and join the tools with defer_loading, after the rest', () => {
    const chain = [
      {
        type: 'user',
        uuid: 'r',
        parentUuid: 'a',
        sessionId: 's',
        timestamp: '',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't', content: [{ type: 'tool_reference', tool_name: 'mcp__s__t7' }] },
          ],
        },
      },
    ] as TranscriptEntry[];
    expect(loadedToolNames(chain)).toEqual(['mcp__s__t7']);
    const o = offeredTools(
      {
        builtins: toolsForModel(['Read']),
        skills: true,
        extra: [],
        mcp: mcp(8),
        mode: 'on',
        model: 'claude-sonnet-5-5',
        contextWindow: 200_000,
      },
      loadedToolNames(chain).concat('mcp__s__t1'),
    );
    expect(o.tools.map((t) => `${t.name}${t.defer_loading ? ' (defer_loading)' : ''}`)).toEqual([
      'Read',
      'Skill',
      'DeferredToolPlaceholder (defer_loading)',
      'ToolSearch',
      'mcp__s__t1 (defer_loading)',
      'mcp__s__t7 (defer_loading)',
    ]);
    expect(o.plan.deferred).toEqual(Array.from({ length: 8 }, (_, i) => `mcp__s__t${i}`));
  });

  test('order: tools by name, MCP tools by name after them, the placeholder second to last (as recorded)', () => {
    const variant = (id: string): string[] => recorded[id]?.requests[0]?.tools ?? [];
    const names = (o: ReturnType<typeof offeredTools>): string[] =>
      o.tools.map((t) => `${t.name}${t.defer_loading ? ' (defer_loading)' : ''}`);
    const listed = ['Read', 'WebFetch', 'NotebookEdit'];
    const src = { skills: false, extra: [], mode: 'on', model: 'claude-sonnet-5-5', contextWindow: 200_000 };
    const spec = (name: string): ModelToolSpec => ({ name, description: name, input_schema: { type: 'object' } });
    // `--tools` without ToolSearch: nothing deferred, the placeholder still sent.
    expect(names(offeredTools({ ...src, builtins: listed.map(spec), mcp: [], listedTools: listed }))).toEqual(
      variant('--tools Read,WebFetch,NotebookEdit'),
    );
    const few = ['mcp__few__few_3', 'mcp__few__few_1', 'mcp__few__few_2'].map(spec);
    expect(names(offeredTools({ ...src, builtins: listed.map(spec), mcp: few, listedTools: listed }))).toEqual(
      variant('--tools Read,WebFetch,NotebookEdit, 3 MCP tools'),
    );
    // Off, or `auto` under its threshold: no placeholder.
    for (const mode of ['off', 'auto:50']) {
      expect(names(offeredTools({ ...src, mode, builtins: listed.map(spec), mcp: [] }))).toEqual([
        'NotebookEdit',
        'Read',
        'WebFetch',
      ]);
    }
    // A subagent type's own list: its order, no placeholder.
    expect(
      names(
        offeredTools({
          ...src,
          builtins: ['Read', 'Glob'].map(spec),
          mcp: [],
          listedTools: ['Read', 'Glob'],
          ownList: true,
        }),
      ),
    ).toEqual(['Read', 'Glob']);
  });
});
