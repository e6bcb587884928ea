/**
 * Sidecar lines: content a turn keeps in the transcript store beside the conversation (the MCP
 * config and tool lists, hook outcomes, pending approvals). A sidecar line is `type: "system"`,
 * has no parent and `isSidecar: true`: it is never on a conversation chain and never a leaf.
 * Its uuid is name-based (chosen by the writer), so writing it again is a no-op in every backend.
 */
import type { TranscriptEntry } from '../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../common/version';

/** Builds a sidecar line of `subtype` carrying `body`'s fields. */
export function sidecarEntry(
  sessionId: string,
  uuid: string,
  subtype: string,
  body: Record<string, unknown>,
): TranscriptEntry {
  return {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'system',
    subtype,
    uuid,
    parentUuid: null,
    sessionId,
    timestamp: new Date().toISOString(),
    isSidecar: true,
    ...body,
  };
}

/** True for a sidecar line (not part of the conversation). */
export function isSidecarEntry(e: TranscriptEntry): boolean {
  return e['isSidecar'] === true;
}
