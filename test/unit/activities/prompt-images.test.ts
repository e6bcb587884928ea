import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promptImagesDir, withImageSources } from '../../../src/activities/prompt-images';
import { createRecordPrompt } from '../../../src/activities/transcript';
import { storePrompt } from '../../../src/client/prompt-ref';
import type { ContentBlock } from '../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

const PNG = readFileSync(join(__dirname, '..', '..', 'fixtures', 'media', 'red-4x4.png'));
const image = (data: Buffer, mediaType = 'image/png'): ContentBlock => ({
  type: 'image',
  source: { type: 'base64', media_type: mediaType, data: data.toString('base64') },
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prompt-images-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('prompt images', () => {
  test('withImageSources: each image is followed by [Image: source: <file>], files numbered from 1, owner-only', async () => {
    const other = Buffer.concat([PNG, Buffer.from([0])]);
    const blocks = [{ type: 'text', text: 'Compare' }, image(PNG), image(other, 'image/jpeg')] as ContentBlock[];
    const out = await withImageSources('sess-1', blocks, () => undefined, dir);
    const d = promptImagesDir('sess-1', dir);
    expect(out).toEqual([
      blocks[0],
      blocks[1],
      { type: 'text', text: `[Image: source: ${join(d, '1.png')}]` },
      blocks[2],
      { type: 'text', text: `[Image: source: ${join(d, '2.jpg')}]` },
    ]);
    expect(readFileSync(join(d, '1.png'))).toEqual(PNG);
    expect(statSync(join(d, '1.png')).mode & 0o777).toBe(0o600);
    expect(statSync(d).mode & 0o777).toBe(0o700);
    // A retried prompt names the files already saved; a new image gets the next number.
    expect(await withImageSources('sess-1', [image(PNG)], () => undefined, dir)).toEqual([
      image(PNG),
      { type: 'text', text: `[Image: source: ${join(d, '1.png')}]` },
    ]);
  });

  test('withImageSources: documents, URL images and unknown image types pass without a note', async () => {
    const blocks = [
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      image(PNG, 'image/tiff'),
    ] as ContentBlock[];
    expect(await withImageSources('s', blocks, () => undefined, dir)).toEqual(blocks);
  });

  test('recordPrompt: a prompt of blocks is stored by ref and written as blocks (the image note added)', async () => {
    const store = new JsonlTranscriptStore(join(dir, 'data'));
    try {
      const sessionId = `prompt-images-${Date.now()}`;
      const blocks = [{ type: 'text', text: 'What colour?' }, image(PNG)] as ContentBlock[];
      const ref = await storePrompt(store, sessionId, blocks);
      expect(ref.key).toMatch(/^prompt-blocks\/[0-9a-f]{64}$/);
      await createRecordPrompt(store)({
        sessionId,
        uuid: '00000000-0000-4000-8000-000000000001',
        parentUuid: null,
        turnId: 't',
        cwd: dir,
        timestamp: new Date().toISOString(),
        prompt: ref,
      });
      const line = await store.get(sessionId, '00000000-0000-4000-8000-000000000001');
      const file = join(promptImagesDir(sessionId), '1.png');
      expect(line?.message?.content).toEqual([...blocks, { type: 'text', text: `[Image: source: ${file}]` }]);
      rmSync(promptImagesDir(sessionId), { recursive: true, force: true });
    } finally {
      await store.close();
    }
  });
});
