import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentRunFields } from '../../../../src/config-files/definitions/agent-fields';
import { loadAgentDir } from '../../../../src/config-files/definitions/agents';
import { AgentsOptionError, catalogAgentType, parseAgentsOption } from '../../../../src/client/agent-types';

describe('agent run fields', () => {
  test('agentRunFields: frontmatter text values become typed fields; unapplied keys are named', () => {
    const r = agentRunFields({
      permissionMode: 'acceptEdits',
      maxTurns: '5',
      effort: 'low',
      background: 'true',
      isolation: 'worktree',
      skills: 'pdf, docx',
      mcpServers: ['github'],
    });
    expect(r.fields).toEqual({
      permissionMode: 'acceptEdits',
      maxTurns: 5,
      effort: 'low',
      background: true,
      isolation: 'worktree',
      skills: ['pdf', 'docx'],
      mcpServers: ['github'],
    });
    expect(r.problems).toEqual([]);
    expect(r.unapplied).toEqual(['isolation', 'skills', 'mcpServers']);
  });

  test('agentRunFields: bad values are problems and their keys are left out', () => {
    const r = agentRunFields({
      permissionMode: 'yolo',
      maxTurns: 0,
      effort: 'huge',
      background: 'no',
      isolation: 'remote',
    });
    expect(r.fields).toEqual({});
    expect(r.problems).toEqual([
      expect.stringContaining('"permissionMode" must be one of default'),
      '"maxTurns" must be a positive integer',
      expect.stringContaining('"effort" must be one of low'),
      '"isolation" must be "worktree"',
    ]);
  });

  test("loadAgentDir: a file's run settings reach its agent type; a bad one and an unapplied one are warned about", () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-fields-'));
    writeFileSync(
      join(dir, 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews.\npermissionMode: plan\nmaxTurns: 3\neffort: high\nbackground: true\nmodel: nope-mode\n---\nYou review.\n',
    );
    writeFileSync(join(dir, 'odd.md'), '---\nname: odd\ndescription: Odd.\nmaxTurns: many\nskills: [pdf]\n---\nOdd.\n');
    const warnings: string[] = [];
    const [odd, reviewer] = loadAgentDir(dir, { scope: 'project', roots: [dir] }, (m) => warnings.push(m));
    expect(catalogAgentType(reviewer!)).toMatchObject({
      agentType: 'reviewer',
      permissionMode: 'plan',
      maxTurns: 3,
      effort: 'high',
      background: true,
    });
    expect(catalogAgentType(odd!)).toMatchObject({ agentType: 'odd', skills: ['pdf'] });
    expect(catalogAgentType(odd!)).not.toHaveProperty('maxTurns');
    expect(warnings).toEqual([
      `${join(dir, 'odd.md')}: "maxTurns" must be a positive integer; ignored`,
      expect.stringMatching(/odd\.md: "skills" is not applied to the agent's runs yet/),
    ]);
  });

  test('parseAgentsOption: --agents takes the same keys; a bad value is a usage error naming the agent', () => {
    const [a] = parseAgentsOption(
      { r: { description: 'd', prompt: 'p', permissionMode: 'dontAsk', effort: 'max', maxTurns: 2 } },
      'sdk',
      () => undefined,
    );
    expect(a).toMatchObject({ permissionMode: 'dontAsk', effort: 'max', maxTurns: 2 });
    expect(() => parseAgentsOption({ r: { description: 'd', prompt: 'p', effort: 'huge' } }, 'cli')).toThrow(
      AgentsOptionError,
    );
    expect(() => parseAgentsOption({ r: { description: 'd', prompt: 'p', effort: 'huge' } }, 'cli')).toThrow(
      /--agents: agent "r": "effort"/,
    );
  });
});
