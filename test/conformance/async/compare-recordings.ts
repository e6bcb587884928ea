/**
 * Recordings as runs of the differential harness, so that `compareRuns` (compare.ts) compares a
 * run of ours with the committed recording of the real CLI: both are normalised, so paths read
 * `<REPO>` and `<HOME>` on both sides.
 */
import type { Side, SideRun } from '../run';
import type { Recording } from './recording';

/** A recording as a {@link SideRun}. */
export function asSideRun(rec: Recording, side: Side): SideRun {
  return {
    side,
    exitCode: rec.meta.exitCode,
    stdout: '',
    stderr: rec.meta.stderr,
    messages: rec.stream,
    strayLines: rec.meta.strayLines,
    requests: rec.requests.map((r) => r.body),
    files: rec.meta.files,
    durationMs: rec.meta.durationMs,
    paths: { repo: '<REPO>', home: '<HOME>' },
  };
}
