import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JsonlTranscriptStore } from '../../../src/store';
import { describeStoreContract } from './contract';

describeStoreContract(
  'JSONL',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonl-contract-'));
    const warnings: string[] = [];
    const open = (maxContentBytes?: number): JsonlTranscriptStore =>
      new JsonlTranscriptStore(dataDir, {
        onWarning: (m) => warnings.push(m),
        ...(maxContentBytes !== undefined ? { maxContentBytes } : {}),
      });
    return {
      store: open(),
      reopen: async (opts) => open(opts?.maxContentBytes),
      async dispose() {
        fs.rmSync(dataDir, { recursive: true, force: true });
        expect(warnings).toEqual([]);
      },
    };
  },
  { knownGaps: ['cross-instance-first-writer'] },
);
