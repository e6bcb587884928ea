import { isMcpToolName, mcpRuleMatches, mcpServerOf, mcpToolName, normalizeMcpName } from '../../../src/common/mcp';

describe('MCP tool names', () => {
  it('mcpToolName: mcp__<server>__<tool>, other characters normalized to _', () => {
    expect(mcpToolName('git', 'status')).toBe('mcp__git__status');
    expect(mcpToolName('my server', 'do.it')).toBe('mcp__my_server__do_it');
    expect(normalizeMcpName('a-b_c9')).toBe('a-b_c9');
  });
  it('mcpServerOf: the server part of a tool name or server rule', () => {
    expect(mcpServerOf('mcp__git__status')).toBe('git');
    expect(mcpServerOf('mcp__git')).toBe('git');
    expect(mcpServerOf('Bash')).toBeNull();
    expect(isMcpToolName('mcp__x__y')).toBe(true);
  });
  it('mcpRuleMatches: server rules cover every tool of the server; tool rules one tool', () => {
    expect(mcpRuleMatches('mcp__git', 'mcp__git__status')).toBe(true);
    expect(mcpRuleMatches('mcp__git__*', 'mcp__git__status')).toBe(true);
    expect(mcpRuleMatches('mcp__git__status', 'mcp__git__status')).toBe(true);
    expect(mcpRuleMatches('mcp__git__log', 'mcp__git__status')).toBe(false);
    expect(mcpRuleMatches('mcp__gi', 'mcp__git__status')).toBe(false);
    expect(mcpRuleMatches('mcp__github', 'mcp__git__status')).toBe(false);
    expect(mcpRuleMatches('Bash', 'mcp__git__status')).toBe(false);
  });
});
