import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileStreamEventChannel } from '../../../src/store';
import { describeStreamEventChannelContract } from './stream-events-contract';

describeStreamEventChannelContract('files', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-events-'));
  const extra: string[] = [];
  const file = (sessionId: string, callId: string): string =>
    path.join(dataDir, 'stream-events', sessionId, `${callId}.jsonl`);
  return {
    channel: new FileStreamEventChannel(dataDir),
    other: async () => new FileStreamEventChannel(dataDir),
    async age(sessionId, callId, ms) {
      const past = (Date.now() - ms) / 1000;
      fs.utimesSync(file(sessionId, callId), past, past);
    },
    stored: async (sessionId, callId) => fs.existsSync(file(sessionId, callId)),
    async broken() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-events-broken-'));
      extra.push(dir);
      fs.writeFileSync(path.join(dir, 'stream-events'), 'not a directory');
      return new FileStreamEventChannel(dir);
    },
    async dispose() {
      for (const d of [dataDir, ...extra]) fs.rmSync(d, { recursive: true, force: true });
    },
  };
});
