/** Agent types: custom ones from --agents and .claude/agents (with tool restrictions), and the built-in ones. */
import { expectSent, requestAt, resultsOf, streamOf, systemOf, toolNames } from './checks';
import { SUBAGENT_TOOLS, agent, ask, texts } from './helpers';
import type { Recording } from './recording';
import type { AsyncScenario } from './scenario';
import { say, text, tool } from './scenario';
import { agentHandback, noSuchTool } from './texts';

const REVIEWER = {
  reviewer: {
    description: 'Reviews a file for mistakes. Use after edits.',
    prompt: 'You are the reviewer agent. Report mistakes only.',
    tools: ['Read', 'Grep'],
    model: 'haiku',
  },
};

const LINTER_MD = [
  '---',
  'name: linter',
  'description: Checks the style of a file.',
  'tools: Read, Glob',
  'disallowedTools: Bash',
  'model: inherit',
  'color: green',
  '---',
  'You are the linter agent. Report style problems only.',
  '',
].join('\n');

/** The agent-type line of the agent listing reminder (in the first request's context). */
function agentListing(rec: Recording): string {
  const req = requestAt(rec, 'main', 0);
  const all = req.messages.flatMap((m) =>
    typeof m.content === 'string' ? [m.content] : m.content.map((b) => String(b['text'] ?? '')),
  );
  const text = all.find((t) => t.includes('Available agent types for the Agent tool:')) ?? '';
  return text.slice(text.indexOf('Available agent types'));
}

export const AGENT_TYPE_SCENARIOS: readonly AsyncScenario[] = [
  {
    name: 'agent-custom-flag',
    title: 'a custom agent from --agents (tools Read, Grep; model haiku): its request, a disallowed Bash call',
    args: ['--agents', JSON.stringify(REVIEWER)],
    pending: false,
    agents: {
      main: [
        say(
          agent({
            subagent_type: 'reviewer',
            description: 'Review a.txt',
            prompt: ask('rev', 'Review a.txt.'),
            run_in_background: false,
          }),
        ),
        ...texts('Reviewed.'),
      ],
      rev: [
        say(
          tool('Bash', { command: 'cat a.txt', description: 'Show a.txt' }),
          tool('Read', { file_path: '{{cwd}}/a.txt' }),
        ),
        say(text('No mistakes.')),
      ],
    },
    check: (rec) => {
      const rev = requestAt(rec, 'rev', 0);
      expect(rev.model).toBe('claude-haiku-5-5');
      expect(toolNames(rev)).toEqual(['Read', 'Grep']);
      // Claude Code's own system blocks (billing header, SDK identity) come before it; the runner sends none.
      expect(systemOf(rev)).toMatch(
        /(^|\n)You are the reviewer agent\. Report mistakes only\.\n\nMessages from the agent that launched you/,
      );
      expectSent(rec, 'toolu_as_rev_0_0', noSuchTool('Bash'), true);
      expect(agentListing(rec)).toContain(
        '\n- reviewer: Reviews a file for mistakes. Use after edits. (Tools: Read, Grep)\n',
      );
      expect(streamOf(rec, 'system/init')[0]?.['agents']).toContain('reviewer');
      expectSent(
        rec,
        'toolu_as_main_0_0',
        agentHandback({
          agentId: '<agent:1>',
          report: 'No mistakes.',
          toolsUsed: ['Read'],
          tokens: '<n>',
          toolUses: 2,
        }),
      );
    },
  },
  {
    name: 'agent-custom-file',
    title:
      'a custom agent from .claude/agents/linter.md (tools Read, Glob): its request, disallowed Write and Bash calls',
    files: { 'a.txt': 'one\ntwo\nthree\n', '.claude/agents/linter.md': LINTER_MD },
    pending: false,
    agents: {
      main: [
        say(
          agent({
            subagent_type: 'linter',
            description: 'Lint a.txt',
            prompt: ask('lint', 'Lint a.txt.'),
            run_in_background: false,
          }),
        ),
        ...texts('Linted.'),
      ],
      lint: [
        say(
          tool('Write', { file_path: '{{cwd}}/b.txt', content: 'x\n' }),
          tool('Bash', { command: 'ls', description: 'List files' }),
          tool('Glob', { pattern: '*.txt' }),
        ),
        say(text('Style is fine.')),
      ],
    },
    check: (rec) => {
      const lint = requestAt(rec, 'lint', 0);
      expect(lint.model).toBe('claude-sonnet-5-5');
      expect(toolNames(lint)).toEqual(['Read', 'Glob']);
      expect(systemOf(lint)).toContain('You are the linter agent. Report style problems only.');
      expectSent(rec, 'toolu_as_lint_0_0', noSuchTool('Write'), true);
      expectSent(rec, 'toolu_as_lint_0_1', noSuchTool('Bash'), true);
      expect(agentListing(rec)).toContain('\n- linter: Checks the style of a file. (Tools: Read, Glob)\n');
      expect(rec.meta.files['b.txt']).toBeUndefined();
    },
  },
  {
    name: 'agent-type-denied',
    title: 'an Agent(Explore) deny rule: the Explore call fails with its text, Explore leaves the listing',
    args: ['--disallowedTools', 'Agent(Explore)'],
    pending: false,
    agents: {
      main: [
        say(
          agent({
            subagent_type: 'Explore',
            description: 'Find a.txt',
            prompt: ask('explore', 'Find a.txt.'),
            run_in_background: false,
          }),
        ),
        ...texts('Explore is denied.'),
      ],
      explore: texts('A denied agent ran.'),
    },
    check: (rec) => {
      expectSent(
        rec,
        'toolu_as_main_0_0',
        "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from cliArg.",
        true,
      );
      expect(agentListing(rec)).toContain('\n- general-purpose: ');
      expect(agentListing(rec)).not.toContain('\n- Explore: ');
      expect(resultsOf(rec)[0]?.['permission_denials']).toEqual([]);
    },
  },
  {
    name: 'agent-subagent-hooks',
    title:
      'SubagentStart and SubagentStop hooks: the start context reaches the agent, a SubagentStop block makes it go on, Stop fires for the main agent only',
    files: {
      '.claude/settings.json': JSON.stringify({
        hooks: {
          SubagentStart: [
            {
              matcher: 'general-purpose',
              hooks: [
                {
                  type: 'command',
                  command:
                    'cat >> hooks.log; echo >> hooks.log; echo \'{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"Be brief."}}\'',
                },
              ],
            },
          ],
          SubagentStop: [
            {
              matcher: 'general-purpose',
              hooks: [
                {
                  type: 'command',
                  command:
                    'input=$(cat); printf \'%s\\n\' "$input" >> hooks.log; case "$input" in *\'"stop_hook_active":false\'*) echo \'{"decision":"block","reason":"Check again."}\';; esac',
                },
              ],
            },
          ],
          Stop: [{ hooks: [{ type: 'command', command: 'cat >> hooks.log; echo >> hooks.log' }] }],
        },
      }),
    },
    pending: false,
    agents: {
      main: [
        say(agent({ description: 'Check', prompt: ask('helper', 'Check the file.'), run_in_background: false })),
        ...texts('Main done.'),
      ],
      helper: [say(text('First answer.')), say(text('Second answer.'))],
    },
    check: (rec) => {
      const events = (rec.meta.files['hooks.log'] ?? '')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(events.map((e) => e['hook_event_name'])).toEqual([
        'SubagentStart',
        'SubagentStop',
        'SubagentStop',
        'Stop',
      ]);
      expect(events[0]).toMatchObject({ agent_type: 'general-purpose' });
      expect(events[1]).toMatchObject({ agent_type: 'general-purpose', stop_hook_active: false });
      expect(events[1]?.['agent_id']).toBe(events[0]?.['agent_id']);
      expect(events[2]).toMatchObject({ stop_hook_active: true, last_assistant_message: 'Second answer.' });
      expect(JSON.stringify(requestAt(rec, 'helper', 0).messages)).toContain('Be brief.');
      expect(JSON.stringify(requestAt(rec, 'helper', 1).messages)).toContain('Check again.');
    },
  },
  {
    name: 'agent-types',
    title: 'the built-in agent types (Explore, Plan, statusline-setup, claude) and a model override: their requests',
    agents: {
      main: [
        say(
          agent({
            subagent_type: 'Explore',
            description: 'Find a.txt',
            prompt: ask('explore', 'Find a.txt.'),
            run_in_background: false,
          }),
          agent({
            subagent_type: 'Plan',
            description: 'Plan a change',
            prompt: ask('plan', 'Plan a change.'),
            run_in_background: false,
          }),
          agent({
            subagent_type: 'statusline-setup',
            description: 'Set the status line',
            prompt: ask('statusline', 'Set the status line.'),
            run_in_background: false,
          }),
          agent({
            subagent_type: 'claude',
            description: 'Say hi',
            prompt: ask('claude', 'Say hi.'),
            run_in_background: false,
          }),
          agent({
            description: 'Say hi on haiku',
            prompt: ask('haiku', 'Say hi.'),
            model: 'haiku',
            run_in_background: false,
          }),
        ),
        ...texts('All five answered.'),
      ],
      explore: texts('Found it.'),
      plan: texts('Plan: none needed.'),
      statusline: texts('Nothing to set.'),
      claude: texts('Hi.'),
      haiku: texts('Hi from haiku.'),
    },
    pending: true,
    check: (rec) => {
      const readOnly = SUBAGENT_TOOLS.filter((t) => !['Agent', 'Edit', 'Write', 'DeferredToolPlaceholder'].includes(t));
      expect(toolNames(requestAt(rec, 'explore', 0)).filter((t) => t !== 'DeferredToolPlaceholder')).toEqual(readOnly);
      expect(toolNames(requestAt(rec, 'plan', 0))).toEqual(toolNames(requestAt(rec, 'explore', 0)));
      expect(toolNames(requestAt(rec, 'statusline', 0))).toEqual(['Read', 'Edit']);
      expect(toolNames(requestAt(rec, 'claude', 0))).toEqual(SUBAGENT_TOOLS);
      expect(systemOf(requestAt(rec, 'explore', 0))).toContain('You are a file search specialist for Claude Code');
      expect(systemOf(requestAt(rec, 'plan', 0))).toContain('You are a software architect and planning specialist');
      expect(systemOf(requestAt(rec, 'statusline', 0))).toContain('You are a status line setup agent for Claude Code.');
      expect(systemOf(requestAt(rec, 'claude', 0))).toContain('This session is a background job.');
      const haiku = requestAt(rec, 'haiku', 0);
      expect(haiku.model).toBe('claude-haiku-5-5');
      expect(systemOf(haiku)).toContain("You are an agent for Claude Code, Anthropic's official CLI for Claude.");
      expect(streamOf(rec, 'system/task_started').map((m) => m['subagent_type'])).toEqual([
        'Explore',
        'Plan',
        'statusline-setup',
        'claude',
        'general-purpose',
      ]);
      expect(agentListing(rec)).toMatch(
        /^Available agent types for the Agent tool:\n- claude: .*\(Tools: \*\)\n- Explore: /,
      );
    },
  },
];
