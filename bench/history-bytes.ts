/**
 * History bytes per step for contexts of 10 KB, 100 KB and 1 MB: each step's tool input (Write
 * content) or tool output (Bash printing) has that size. DESIGN.md rule 1 says the figure must
 * stay flat: history holds references, the content goes to the transcript store.
 */
import { temporal } from '@temporalio/proto';
import { makeRepo, progress, startRunner } from './env';
import type { Measurement } from './stats';
import { bytes, renderTable, round } from './stats';

/** Options of {@link measureHistoryBytes}. */
export interface HistoryBytesOptions {
  address: string;
  /** Tool steps per turn (half Write, half Bash). */
  steps: number;
}

const SIZES: ReadonlyArray<{ label: string; bytes: number }> = [
  { label: '10 KB', bytes: 10 * 1024 },
  { label: '100 KB', bytes: 100 * 1024 },
  { label: '1 MB', bytes: 1024 * 1024 },
];

export async function measureHistoryBytes(opts: HistoryBytesOptions): Promise<Measurement> {
  const scripts = SIZES.map((size) => ({
    name: size.label,
    match: { promptContains: `[${size.label}]` },
    steps: [
      ...Array.from({ length: opts.steps }, (_, i) => ({
        content: [
          i % 2 === 0
            ? {
                tool_use: {
                  name: 'Write',
                  input: { file_path: `{{cwd}}/out-${i}.txt`, content: 'x'.repeat(size.bytes) },
                },
              }
            : { tool_use: { name: 'Bash', input: { command: `head -c ${size.bytes} /dev/zero | tr '\\0' y` } } },
        ],
      })),
      { content: [{ text: 'done' }] },
    ],
  }));
  const runner = await startRunner({ address: opts.address, fake: { scenario: { scripts } } });
  const rows: Array<{
    label: string;
    historyBytes: number;
    events: number;
    modelCalls: number;
    perStep: number;
    transcriptBytes: number;
  }> = [];
  try {
    for (const size of SIZES) {
      progress(`history bytes: ${size.label} context`);
      const { outcome, engine, turnWorkflowId } = await runner.runTurn(makeRepo({}), `[${size.label}] write`);
      if (outcome.subtype !== 'success')
        throw new Error(`history bytes: the ${size.label} turn ended with ${outcome.subtype}`);
      const history = await runner.client.workflow.getHandle(turnWorkflowId).fetchHistory();
      const historyBytes = temporal.api.history.v1.History.encode(history).finish().length;
      const transcriptBytes = JSON.stringify(await runner.store.load(engine.sessionId)).length;
      rows.push({
        label: size.label,
        historyBytes,
        events: history.events?.length ?? 0,
        modelCalls: outcome.numTurns,
        perStep: historyBytes / outcome.numTurns,
        transcriptBytes,
      });
    }
  } finally {
    await runner.close();
  }
  const per = rows.map((r) => r.perStep);
  const flatness = Math.max(...per) / Math.min(...per);
  const table = renderTable(
    `History bytes per step (turn workflow history / model calls), ${opts.steps} tool steps + 1 answer per turn`,
    ['context per step', 'bytes/step', 'history', 'events', 'transcript'],
    [
      ...rows.map((r) => [
        r.label,
        r.perStep.toFixed(0),
        bytes(r.historyBytes),
        String(r.events),
        bytes(r.transcriptBytes),
      ]),
      ['max/min ratio', flatness.toFixed(3), '', '', ''],
    ],
  );
  return {
    name: 'historyBytes',
    table,
    json: {
      steps: opts.steps,
      perStep: Object.fromEntries(rows.map((r) => [r.label, round(r.perStep, 0)])),
      historyBytes: Object.fromEntries(rows.map((r) => [r.label, r.historyBytes])),
      maxOverMin: round(flatness, 3),
    },
  };
}
