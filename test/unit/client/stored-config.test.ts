import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ContextContentWriter, storeContextOptions } from '../../../src/client/stored-config';
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
      new ContextContentWriter(store, 's'),
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
    expect(
      await storeContextOptions(new ContextContentWriter(store, 's'), { settingSources: ['project'] }, load),
    ).toEqual({
      settingSources: ['project'],
    });
    expect(loads).toBe(0);
    expect(await storeContextOptions(new ContextContentWriter(store, 's'), {}, () => Promise.resolve([]))).toEqual({});
  });

  test('ContextContentWriter: the same text is written once, however often options carrying it are stored', async () => {
    const puts: string[] = [];
    const putContent = store.putContent.bind(store);
    store.putContent = (sessionId, key, body) => {
      puts.push(key);
      return putContent(sessionId, key, body);
    };
    const writer = new ContextContentWriter(store, 's');
    const options: Partial<TurnOptions> = { systemPrompt: 'Custom.', appendSystemPrompt: 'Tail.' };
    // As a -p run does: the engine's defaults and the submission's options are the same options.
    const [a, b] = await Promise.all([
      storeContextOptions(writer, options, () => Promise.resolve(mine)),
      storeContextOptions(writer, options, () => Promise.resolve(mine)),
    ]);
    const c = await storeContextOptions(writer, { ...options, model: 'other' }, () => Promise.resolve(mine));
    expect(b).toEqual(a);
    expect(c).toEqual({ ...a, model: 'other' });
    expect(puts.sort()).toEqual(
      [
        contextContentKey('system-prompt', 'Custom.'),
        contextContentKey('append-system-prompt', 'Tail.'),
        contextContentKey('user-memory', JSON.stringify(mine)),
      ].sort(),
    );
    // A new text is written.
    await storeContextOptions(writer, { systemPrompt: 'Other.' }, () => Promise.resolve([]));
    expect(puts).toContain(contextContentKey('system-prompt', 'Other.'));
    expect(puts).toHaveLength(4);
  });
});
