import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { storeContextOptions } from '../../../src/client/stored-config';
import type { MemoryFile } from '../../../src/common/context';
import type { TurnOptions } from '../../../src/common/turn';
import { contextContentKey } from '../../../src/store/context-content';
import { JsonlTranscriptStore } from '../../../src/store';

let dataDir: string;
let store: JsonlTranscriptStore;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stored-config-'));
  store = new JsonlTranscriptStore(dataDir);
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const mine: MemoryFile[] = [{ path: '/home/u/.claude/CLAUDE.md', type: 'User', content: 'Be kind.' }];

describe('context options', () => {
  test('storeContextOptions: system prompt parts and the user memory become content keys', async () => {
    const append = 'x'.repeat(1_000_000);
    const out = await storeContextOptions<Partial<TurnOptions>>(
      store,
      's',
      { systemPrompt: 'Custom.', appendSystemPrompt: append, model: 'm' },
      () => Promise.resolve(mine),
    );
    expect(out).toEqual({
      model: 'm',
      systemPromptKey: contextContentKey('system-prompt', 'Custom.'),
      appendSystemPromptKey: contextContentKey('append-system-prompt', append),
      userMemoryKey: contextContentKey('user-memory', JSON.stringify(mine)),
    });
    expect(JSON.stringify(out).length).toBeLessThan(400);
    expect((await store.getContent('s', out.appendSystemPromptKey!))?.toString()).toBe(append);
    expect(JSON.parse((await store.getContent('s', out.userMemoryKey!))!.toString())).toEqual(mine);
  });

  test('storeContextOptions: no user memory without the user source, or when there is none', async () => {
    let loads = 0;
    const load = (): Promise<MemoryFile[]> => {
      loads++;
      return Promise.resolve(mine);
    };
    expect(await storeContextOptions(store, 's', { settingSources: ['project'] }, load)).toEqual({
      settingSources: ['project'],
    });
    expect(loads).toBe(0);
    expect(await storeContextOptions(store, 's', {}, () => Promise.resolve([]))).toEqual({});
  });
});
