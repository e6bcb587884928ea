/**
 * Stored workflow histories (test/fixtures/histories): encoded `History` protos that replay tests
 * run on the current workflow code. The writer only adds: a new fixture gets the next free
 * version number of its name, so a fixture once stored is never replaced.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

/** The fixture folder. */
export const HISTORY_FIXTURES = join(__dirname, '..', 'fixtures', 'histories');

/** True when the run was asked to store new fixtures (`UPDATE_HISTORY_FIXTURES=1`). */
export function recordingFixtures(): boolean {
  return Boolean(process.env['UPDATE_HISTORY_FIXTURES']);
}

/**
 * Stores `history` as `<name>-v<N>.history.bin`, N one above the highest stored version of that
 * name (1 for the first). Never overwrites a file.
 * @returns the file name written
 */
export function addHistoryFixture(name: string, history: History, dir = HISTORY_FIXTURES): string {
  mkdirSync(dir, { recursive: true });
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-v(\\d+)\\.history\\.bin$`);
  const versions = readdirSync(dir)
    .map((f) => pattern.exec(f)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number);
  const file = `${name}-v${Math.max(0, ...versions) + 1}.history.bin`;
  const path = join(dir, file);
  if (existsSync(path)) throw new Error(`history fixture ${file} exists: fixtures are never overwritten`);
  writeFileSync(path, temporal.api.history.v1.History.encode(history).finish(), { flag: 'wx' });
  return file;
}

/** Every stored fixture file name. */
export function historyFixtureFiles(dir = HISTORY_FIXTURES): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.history.bin'))
    .sort();
}

/** One stored fixture, decoded. */
export function readHistoryFixture(file: string, dir = HISTORY_FIXTURES): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.decode(readFileSync(join(dir, file)));
}
