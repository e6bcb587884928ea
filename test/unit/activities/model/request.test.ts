import { buildMessages, MISSING_RESULT_TEXT, ORPHAN_RESULTS_TEXT } from '../../../../src/activities/model/request';
import type { TranscriptEntry } from '../../../../src/common/transcript';

let n = 0;
function line(type: 'user' | 'assistant', content: unknown): TranscriptEntry {
  n++;
  return {
    type,
    uuid: `u${n}`,
    parentUuid: null,
    sessionId: 's',
    timestamp: '',
    message: { role: type, content } as never,
  };
}

describe('request builder', () => {
  test("buildMessages: a subagent's agent listing is a system message after its first tool results, and stays there", () => {
    const chain = [
      line('user', 'go'),
      line('assistant', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }]),
      line('user', [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }]),
    ];
    const listing = { agentListingAfterResults: 'Available agent types for the Agent tool:\n- x: y (Tools: *)' };
    expect(buildMessages(chain, listing).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'system']);
    const later = buildMessages(
      [
        ...chain,
        line('assistant', [{ type: 'tool_use', id: 't2', name: 'Bash', input: {} }]),
        line('user', [{ type: 'tool_result', tool_use_id: 't2', content: 'b' }]),
      ],
      listing,
    );
    expect(later.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'system', 'assistant', 'user']);
    expect(later[3]?.content).toEqual([{ type: 'text', text: listing.agentListingAfterResults }]);
    // Before any tool result there is nowhere to put it yet.
    expect(buildMessages([line('user', 'go')], listing).map((m) => m.role)).toEqual(['user']);
  });

  test('buildMessages: consecutive tool_result lines merge into one user message', () => {
    const msgs = buildMessages([
      line('user', 'do it'),
      line('assistant', [
        { type: 'tool_use', id: 't1', name: 'Read', input: {} },
        { type: 'tool_use', id: 't2', name: 'Glob', input: {} },
      ]),
      line('user', [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }]),
      line('user', [{ type: 'tool_result', tool_use_id: 't2', content: 'b' }]),
    ]);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((msgs[2]?.content as unknown[]).length).toBe(2);
  });

  test('buildMessages: the last block carries the cache breakpoint, and only it', () => {
    const msgs = buildMessages([
      line('user', 'hi'),
      line('assistant', [{ type: 'text', text: 'yo' }]),
      line('user', 'again'),
    ]);
    const all = msgs.flatMap((m) => m.content as unknown as Array<Record<string, unknown>>);
    expect(all.filter((b) => b['cache_control'])).toHaveLength(1);
    expect(all.at(-1)?.['cache_control']).toEqual({ type: 'ephemeral' });
  });

  test('buildMessages: a tool_use without a result gets an is_error result, so the API never answers 400', () => {
    const msgs = buildMessages([
      line('user', 'go'),
      line('assistant', [{ type: 'tool_use', id: 'lost', name: 'Bash', input: {} }]),
    ]);
    expect(msgs).toHaveLength(3);
    expect((msgs[2]?.content as unknown as Array<Record<string, unknown>>)[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'lost',
      is_error: true,
      content: MISSING_RESULT_TEXT,
    });
  });

  test('buildMessages: a tool_result whose tool_use is not in the previous assistant message is left out', () => {
    // The shape a forked transcript had: the stored tool_use (kept) and a result for another id.
    const msgs = buildMessages([
      line('user', 'go'),
      line('assistant', [{ type: 'tool_use', id: 'stored', name: 'Bash', input: {} }]),
      line('user', [{ type: 'tool_result', tool_use_id: 'other', content: 'x' }]),
      line('assistant', [{ type: 'text', text: 'next' }]),
      line('user', [{ type: 'tool_result', tool_use_id: 'nowhere', content: 'y' }]),
    ]);
    const blocks = (i: number) => msgs[i]?.content as unknown as Array<Record<string, unknown>>;
    expect(blocks(2).map((b) => [b['type'], b['tool_use_id']])).toEqual([['tool_result', 'stored']]);
    expect(blocks(4)).toEqual([{ type: 'text', text: ORPHAN_RESULTS_TEXT, cache_control: { type: 'ephemeral' } }]);
  });

  test("buildMessages: a PostToolUse hook's context is a system message after the tool results, as Claude Code sends it", () => {
    const hookLine = (event: string, text: string): TranscriptEntry => ({
      ...line('user', [{ type: 'text', text }]),
      isMeta: true,
      hookEvent: event,
    });
    const msgs = buildMessages([
      line('user', 'do it'),
      line('assistant', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }]),
      line('user', [{ type: 'tool_result', tool_use_id: 't1', content: 'hi' }]),
      hookLine('PostToolUse', 'PostToolUse:Bash hook additional context: ran'),
      line('assistant', [{ type: 'text', text: 'done' }]),
      hookLine('Stop', 'Stop hook feedback:\nagain'),
    ]);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'system', 'assistant', 'user']);
    expect((msgs[3]?.content as unknown as Array<{ text: string }>)[0]?.text).toBe(
      'PostToolUse:Bash hook additional context: ran',
    );
  });

  test('buildMessages: stored-only fields are not sent back to the API', () => {
    const msgs = buildMessages([line('user', 'q'), line('assistant', [{ type: 'text', text: 'a', citations: null }])]);
    expect(msgs[1]?.content).toEqual([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }]);
  });
});

describe('request builder: stored context', () => {
  const env = {
    workingDirectory: '/w/repo',
    isGitRepo: true,
    platform: 'linux',
    shell: 'bash',
    osVersion: 'Linux 6.8',
    model: 'claude-x',
    date: '2026-01-02',
  };
  const memory = { path: '/w/repo/CLAUDE.md', type: 'Project', content: 'Use tabs.\n' };
  const contextLine = (turnId = 't1'): TranscriptEntry => ({
    type: 'attachment',
    uuid: `ctx${++n}`,
    parentUuid: null,
    sessionId: 's',
    timestamp: '',
    turnId,
    attachments: [
      { type: 'instructions', files: [memory] },
      { type: 'session_context', context: { gitStatus: 'Current branch: main' } },
      { type: 'environment', environment: env },
    ],
  });
  const nested = (path: string, turnId: string, toolUseId: string): TranscriptEntry => ({
    ...line('user', [{ type: 'tool_result', tool_use_id: toolUseId, content: 'file text' }]),
    turnId,
    attachments: [{ type: 'nested_memory', file: { path, type: 'Project', content: 'Nested rules.\n' } }],
  });
  const kinds = (msgs: ReturnType<typeof buildMessages>): string[] =>
    msgs.map((m) => {
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
      return `${m.role}: ${blocks
        .map((b) => {
          if (b.type !== 'text') return b.type;
          const t = (b as { text: string }).text;
          if (t.startsWith('<system-reminder>\nCodebase and user instructions')) return 'memory';
          if (t.includes('# gitStatus')) return 'gitStatus';
          if (t.startsWith('<system-reminder>\nContents of ')) return `nested ${/Contents of (\S+):/.exec(t)?.[1]}`;
          if (t.startsWith('# Environment')) return 'environment';
          return `text(${t})`;
        })
        .join(', ')}`;
    });

  test('buildMessages: memory and git status go ahead of the prompt, the environment into a system message', () => {
    const msgs = buildMessages([line('user', 'do it'), contextLine()]);
    expect(kinds(msgs)).toEqual(['user: memory, gitStatus, text(do it)', 'system: environment']);
    const blocks = msgs[0]?.content as Array<{ text: string }>;
    expect(blocks[0]?.text).toBe(
      '<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to these instructions. ' +
        'IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n' +
        'Contents of /w/repo/CLAUDE.md (project instructions, checked into the codebase):\n\nUse tabs.\n</system-reminder>',
    );
    const system = (msgs[1]?.content as Array<{ text: string; cache_control?: unknown }>)[0];
    expect(system?.text).toContain(' - Primary working directory: /w/repo\n - Is a git repository: true');
    expect(system?.text).toMatch(/Today's date is 2026-01-02\.$/);
    expect(system?.cache_control).toEqual({ type: 'ephemeral' });
  });

  test('buildMessages: nested memory follows all tool results of its message, once per turn', () => {
    const use = (id: string): Record<string, unknown> => ({ type: 'tool_use', id, name: 'Read', input: {} });
    const msgs = buildMessages([
      line('user', 'do it'),
      contextLine(),
      line('assistant', [use('a'), use('b')]),
      nested('/w/repo/sub/CLAUDE.md', 't1', 'a'),
      // A parallel read found the same file: rendered once.
      nested('/w/repo/sub/CLAUDE.md', 't1', 'b'),
      line('assistant', [{ type: 'text', text: 'ok' }]),
      line('user', 'next turn'),
      line('assistant', [use('c')]),
      // The next turn loads it again.
      nested('/w/repo/sub/CLAUDE.md', 't2', 'c'),
    ]);
    expect(kinds(msgs)).toEqual([
      'user: memory, gitStatus, text(do it)',
      'system: environment',
      'assistant: tool_use, tool_use',
      'user: tool_result, tool_result, nested /w/repo/sub/CLAUDE.md',
      'assistant: text(ok)',
      'user: text(next turn)',
      'assistant: tool_use',
      'user: tool_result, nested /w/repo/sub/CLAUDE.md',
    ]);
    const last = msgs.at(-1)?.content as Array<{ text?: string }>;
    expect(last.at(-1)?.text).toBe(
      '<system-reminder>\nContents of /w/repo/sub/CLAUDE.md:\n\nNested rules.\n\n</system-reminder>',
    );
  });

  test('buildMessages: a compaction summary carrying the context renders like the first prompt', () => {
    const summary: TranscriptEntry = {
      ...line('user', 'Summary of it so far'),
      attachments: contextLine().attachments!,
    };
    expect(kinds(buildMessages([summary]))).toEqual([
      'user: memory, gitStatus, text(Summary of it so far)',
      'system: environment',
    ]);
  });

  const bash = (id: string): TranscriptEntry => line('assistant', [{ type: 'tool_use', id, name: 'Bash', input: {} }]);
  const bashResult = (id: string, shellCwd?: string): TranscriptEntry => ({
    ...line('user', [{ type: 'tool_result', tool_use_id: id, content: 'out' }]),
    ...(shellCwd !== undefined ? { toolRun: { tool: 'Bash', outcome: 'ok' as const, shellCwd } } : {}),
  });
  const texts = (msgs: ReturnType<typeof buildMessages>): string[] =>
    msgs
      .filter((m) => m.role === ('system' as never))
      .map((m) => (m.content as Array<{ text: string }>)[0]?.text ?? '')
      .slice(1);

  test('buildMessages: a Bash call that moves the shell is followed by an environment update, once per move', () => {
    const msgs = buildMessages([
      line('user', 'do it'),
      contextLine(),
      bash('a'),
      bashResult('a', 'sub'),
      bash('b'),
      // Stays in sub/: nothing new to say.
      bashResult('b', 'sub'),
      bash('c'),
      // Left the working directory: reset to it.
      bashResult('c', ''),
      bash('d'),
      bashResult('d'),
    ]);
    expect(kinds(msgs)).toEqual([
      'user: memory, gitStatus, text(do it)',
      'system: environment',
      'assistant: tool_use',
      'user: tool_result',
      'system: environment',
      'assistant: tool_use',
      'user: tool_result',
      'assistant: tool_use',
      'user: tool_result',
      'system: environment',
      'assistant: tool_use',
      'user: tool_result',
    ]);
    expect(texts(msgs)).toEqual([
      '# Environment update\n - Primary working directory: /w/repo/sub (was /w/repo)',
      '# Environment update\n - Primary working directory: /w/repo (was /w/repo/sub)',
    ]);
  });

  test('buildMessages: the environment update of a batch follows all its tool results and ends a request', () => {
    const msgs = buildMessages([
      line('user', 'do it'),
      contextLine(),
      line('assistant', [
        { type: 'tool_use', id: 'a', name: 'Bash', input: {} },
        { type: 'tool_use', id: 'b', name: 'Read', input: {} },
      ]),
      bashResult('a', 'sub/deep'),
      line('user', [{ type: 'tool_result', tool_use_id: 'b', content: 'x' }]),
    ]);
    expect(kinds(msgs).slice(2)).toEqual([
      'assistant: tool_use, tool_use',
      'user: tool_result, tool_result',
      'system: environment',
    ]);
    expect(texts(msgs)).toEqual(['# Environment update\n - Primary working directory: /w/repo/sub/deep (was /w/repo)']);
    expect((msgs.at(-1)?.content as Array<{ cache_control?: unknown }>)[0]?.cache_control).toEqual({
      type: 'ephemeral',
    });
  });

  test('buildMessages: the prefix of a request is the previous request (cache-stable rendering)', () => {
    const chain: TranscriptEntry[] = [line('user', 'do it'), contextLine()];
    for (let i = 0; i < 6; i++) {
      chain.push(line('assistant', [{ type: 'tool_use', id: `x${i}`, name: 'Read', input: {} }]));
      chain.push({
        ...nested(`/w/repo/d${i % 2}/CLAUDE.md`, 't1', `x${i}`),
        toolRun: { tool: 'Bash', outcome: 'ok', shellCwd: `d${i % 3}` },
      });
    }
    const strip = (msgs: ReturnType<typeof buildMessages>): string =>
      JSON.stringify(msgs).replace(/,"cache_control":\{"type":"ephemeral"\}/g, '');
    for (let k = 3; k <= chain.length; k += 2) {
      const before = strip(buildMessages(chain.slice(0, k - 1)));
      const after = strip(buildMessages(chain.slice(0, k + 1)));
      expect(after.startsWith(before.slice(0, -2))).toBe(true);
    }
  });

  describe('commands, skills and deferred tools (Claude Code 2.1.328)', () => {
    const expansion = (promptUuid: string, content: unknown, attachments: unknown[] = []): TranscriptEntry => ({
      ...line('user', content),
      isMeta: true,
      replacesPrompt: promptUuid,
      ...(attachments.length ? { attachments: attachments as never } : {}),
    });
    const text = (t: string): { type: 'text'; text: string } => ({ type: 'text', text: t });

    test('a command is sent in the place of its prompt: the @file call as a message of its own, its result, the command block and body, then the environment', () => {
      const prompt = line('user', '/fix-ci src/a.js');
      const exp = expansion(
        prompt.uuid,
        [text('<command-message>fix-ci</command-message>\n'), text('Fix src/a.js\n')],
        [{ type: 'file_read', path: '/w/repo/src/a.js', content: '1\tx', style: 'command' }],
      );
      const ctx: TranscriptEntry = {
        ...contextLine(),
        attachments: [{ type: 'environment', environment: env }] as never,
      };
      const msgs = buildMessages([prompt, ctx, exp]);
      expect(msgs.map((m) => m.role)).toEqual(['user', 'user', 'system']);
      const all = msgs.map((m) => (m.content as Array<{ text: string }>).map((b) => b.text.split('\n')[1] ?? b.text));
      expect(all[0]).toEqual(['Called the Read tool with the following input: {"file_path":"/w/repo/src/a.js"}']);
      expect((msgs[1]?.content as Array<{ text: string }>).map((b) => b.text)).toEqual([
        '<system-reminder>\nResult of calling the Read tool:\n1\tx\n</system-reminder>',
        '<command-message>fix-ci</command-message>\n',
        'Fix src/a.js\n',
      ]);
      expect(JSON.stringify(msgs)).not.toContain('/fix-ci src/a.js');
    });

    test('a command that stopped before the model: its answer is not sent, its record and the next turn share the first user message', () => {
      const p1 = line('user', '/shell-write');
      const ctx: TranscriptEntry = {
        ...contextLine(),
        attachments: [{ type: 'environment', environment: env }] as never,
      };
      const record = expansion(p1.uuid, [text('caveat'), text('command'), text('stderr')]);
      const answer: TranscriptEntry = {
        ...line('assistant', [text('Shell command failed')]),
        message: { role: 'assistant', model: '<synthetic>', content: [text('x')] },
      };
      const p2 = line('user', 'next');
      const msgs = buildMessages([p1, ctx, record, answer, p2]);
      expect(kinds(msgs)).toEqual([
        'user: text(caveat), text(command), text(stderr), text(next)',
        'system: environment',
      ]);
    });

    test('an unknown /name: the note goes before the prompt, in its place', () => {
      const prompt = line('user', '/nope x');
      const note = expansion(
        prompt.uuid,
        [text('/nope x')],
        [{ type: 'unknown_command', command: 'nope', available: ['fix-ci', 'clear'] }],
      );
      const msgs = buildMessages([prompt, note]);
      const blocks = msgs[0]?.content as Array<{ text: string }>;
      expect(blocks.map((b) => b.text.slice(0, 40))).toEqual(["<system-reminder>\nThe user's message sta", '/nope x']);
      expect(blocks[0]?.text).toContain('Slash commands available in this session: /fix-ci, /clear.');
    });

    test('a loaded skill: the tool_result, then the @file reads, then its text; a ToolSearch result that loaded tools is followed by "Tool loaded."', () => {
      const msgs = buildMessages([
        line('user', 'go'),
        line('assistant', [
          { type: 'tool_use', id: 't1', name: 'Skill', input: { skill: 's' } },
          { type: 'tool_use', id: 't2', name: 'ToolSearch', input: { query: 'select:mcp__a__b' } },
        ]),
        {
          ...line('user', [
            { type: 'tool_result', tool_use_id: 't1', content: 'Launching skill: s' },
            text('Skill text'),
          ]),
          attachments: [{ type: 'file_read', path: '/f', content: '1\tx', style: 'skill' }] as never,
        },
        line('user', [
          { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'tool_reference', tool_name: 'mcp__a__b' }] },
        ]),
      ]);
      const blocks = (msgs[2]?.content as Array<{ type: string; text?: string }>).map(
        (b) => b.text?.split('\n')[1] ?? b.text ?? b.type,
      );
      expect(blocks).toEqual([
        'tool_result',
        'tool_result',
        'Called the Read tool with the following input: {"file_path":"/f"}',
        'Result of calling the Read tool:',
        'Skill text',
        'Tool loaded.',
      ]);
    });

    test('the environment names the deferred tools and the skills; the output of a UserPromptSubmit hook is a paragraph of it in the first turn, a system message later', () => {
      const ctx: TranscriptEntry = {
        ...contextLine(),
        attachments: [
          { type: 'environment', environment: env },
          { type: 'skill_listing', skills: [{ name: 'fix-ci', description: 'Fix CI' }] },
        ] as never,
      };
      const hook = (t: string): TranscriptEntry => ({
        ...line('user', [text(t)]),
        isMeta: true,
        hookEvent: 'UserPromptSubmit',
      });
      const msgs = buildMessages(
        [
          line('user', 'one'),
          ctx,
          hook('UserPromptSubmit hook success: A'),
          line('assistant', [text('ok')]),
          line('user', 'two'),
          hook('UserPromptSubmit hook success: B'),
        ],
        { deferredTools: ['NotebookEdit', 'mcp__x__y'] },
      );
      expect(msgs.map((m) => m.role)).toEqual(['user', 'system', 'assistant', 'user', 'system']);
      const envText = (msgs[1]?.content as Array<{ text: string }>)[0]?.text ?? '';
      const paragraphs = envText.split('\n\n').map((p) => p.split('\n')[0]);
      expect(paragraphs.slice(-5)).toEqual([
        expect.stringMatching(/^The following deferred tools are now available via ToolSearch\./),
        'The following skills are available for use with the Skill tool:',
        '- fix-ci: Fix CI',
        'UserPromptSubmit hook success: A',
        "Today's date is 2026-01-02.",
      ]);
      expect(envText).toContain(
        'select:<name>[,<name>...]" to load tool schemas before calling them:\nNotebookEdit\nmcp__x__y',
      );
      expect((msgs[4]?.content as Array<{ text: string }>)[0]?.text).toBe('UserPromptSubmit hook success: B');
    });
  });
});
