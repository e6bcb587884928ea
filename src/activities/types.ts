import type { TranscriptEntry } from '../common/transcript';
import type { CallModelInput, CallModelSummary, CompactInput, CompactSummary } from '../common/model';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import type { StoredSessionSummary } from '../common/session';
import type { WorkspaceRef } from '../common/workspace';
import type { LoadContextInput, LoadContextSummary } from '../common/context';

/**
 * The activities workflows call (through `proxyActivities`, imported as a type only).
 * Every one is idempotent by the uuids the workflow passes in: a retry never duplicates a line
 * or repeats a completed model call.
 */
export interface Activities {
  /** Streams one Messages API call; writes the assistant line; returns a summary. */
  callModel(input: CallModelInput): Promise<CallModelSummary>;
  /** Runs one tool call (or records why it did not run); writes its tool_result line. */
  runTool(input: RunToolInput): Promise<RunToolSummary>;
  /** Writes lines to the transcript (prompt, nudges); upsert by uuid. Returns lines written. */
  recordTranscript(entries: TranscriptEntry[]): Promise<number>;
  /** Summarizes a session's stored transcript (for a new or resumed session workflow). */
  loadSession(sessionId: string): Promise<StoredSessionSummary>;
  /** Reads a new session's memory files, git status and environment on the worker; writes them as one line. */
  loadContext(input: LoadContextInput): Promise<LoadContextSummary>;
  /** Summarizes the context into a compact boundary plus a summary line. */
  compactContext(input: CompactInput): Promise<CompactSummary>;
  /**
   * Finds or makes a session's working tree on the worker that runs it (shared task queue: any
   * live worker); null when the working directory is not followed (not a git work tree).
   */
  prepareWorkspace(input: {
    sessionId: string;
    cwd: string;
    current: WorkspaceRef | null;
  }): Promise<WorkspaceRef | null>;
}
