import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadedMemoryPaths,
  nestedMemoryAttachments,
  sessionSettingSources,
} from '../../../../src/activities/context/nested-memory';
import type { TranscriptEntry } from '../../../../src/common/transcript';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'nested-memory-'));
  mkdirSync(join(repo, '.git'));
  mkdirSync(join(repo, 'sub/deep'), { recursive: true });
  writeFileSync(join(repo, 'CLAUDE.md'), 'root');
  writeFileSync(join(repo, 'sub/CLAUDE.md'), 'sub');
  writeFileSync(join(repo, 'sub/deep/CLAUDE.md'), 'deep');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

const base = { parentUuid: null, sessionId: 's', timestamp: '' };
const contextLine = (sources?: Array<'user' | 'project' | 'local'>): TranscriptEntry => ({
  ...base,
  type: 'attachment',
  uuid: 'ctx',
  turnId: 'turn-1',
  attachments: [{ type: 'instructions', files: [{ path: join(repo, 'CLAUDE.md'), type: 'Project', content: 'root' }] }],
  ...(sources ? { settingSources: sources } : {}),
});
const nestedLine = (path: string, turnId: string): TranscriptEntry => ({
  ...base,
  type: 'user',
  uuid: `r-${turnId}-${path}`,
  turnId,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
  attachments: [{ type: 'nested_memory', file: { path, type: 'Project', content: 'sub' } }],
});

describe('nested memory', () => {
  test('nestedMemoryAttachments: a Read below cwd brings the memory files between, outermost first', async () => {
    const r = await nestedMemoryAttachments({
      cwd: repo,
      turnId: 'turn-1',
      toolName: 'Read',
      toolInput: { file_path: 'sub/deep/x.txt' },
      lines: async () => [contextLine()],
    });
    expect(r.attachments.map((a) => a.type === 'nested_memory' && a.file.path)).toEqual([
      join(repo, 'sub/CLAUDE.md'),
      join(repo, 'sub/deep/CLAUDE.md'),
    ]);
  });

  test('nestedMemoryAttachments: once per turn, derived from the transcript; again in the next turn', async () => {
    const entries = [contextLine(), nestedLine(join(repo, 'sub/CLAUDE.md'), 'turn-1')];
    const lines = async (): Promise<TranscriptEntry[]> => entries;
    const args = { cwd: repo, toolName: 'Edit', toolInput: { file_path: join(repo, 'sub/x.txt') }, lines };
    expect((await nestedMemoryAttachments({ ...args, turnId: 'turn-1' })).attachments).toEqual([]);
    expect((await nestedMemoryAttachments({ ...args, turnId: 'turn-2' })).attachments).toHaveLength(1);
  });

  test('nestedMemoryAttachments: only Read, Edit and Write (the transcript is not read for the others); not with setting sources that exclude project files', async () => {
    const input = { file_path: join(repo, 'sub/x.txt') };
    const unread = async (): Promise<TranscriptEntry[]> => {
      throw new Error('the transcript was read');
    };
    for (const toolName of ['Glob', 'Grep', 'Bash']) {
      const r = await nestedMemoryAttachments({ cwd: repo, turnId: 't', toolName, toolInput: input, lines: unread });
      expect(r.attachments).toEqual([]);
    }
    const userOnly = await nestedMemoryAttachments({
      cwd: repo,
      turnId: 't',
      toolName: 'Write',
      toolInput: input,
      lines: async () => [contextLine(['user'])],
    });
    expect(userOnly.attachments).toEqual([]);
  });

  test('loadedMemoryPaths and sessionSettingSources read the session context line', () => {
    const entries = [
      contextLine(['project']),
      nestedLine('/x/CLAUDE.md', 'turn-1'),
      nestedLine('/y/CLAUDE.md', 'turn-0'),
    ];
    expect([...loadedMemoryPaths(entries, 'turn-1')]).toEqual([join(repo, 'CLAUDE.md'), '/x/CLAUDE.md']);
    expect(sessionSettingSources(entries)).toEqual(['project']);
    expect(sessionSettingSources([])).toEqual(['user', 'project', 'local']);
  });
});
