/**
 * The fault suite's transcript checker: reads a session's JSONL file byte for byte (not through
 * the store, which hides duplicates and torn lines) and lists every way the transcript lost or
 * duplicated a message.
 */
import { readFileSync } from 'node:fs';
import { transcriptPath } from '../../../src/store/jsonl-store';

/** What {@link checkTranscript} found. */
export interface TranscriptReport {
  /** Lines that parsed as JSON with a uuid. */
  lines: number;
  /** Lines that did not parse (a torn write). */
  tornLines: number;
  toolUses: number;
  toolResults: number;
  /** Lines on the chain from the leaf to the first prompt. */
  chainLength: number;
  /** The leaf the chain was walked from. */
  leafUuid: string | null;
  /** tool_use ids with no tool_result (problems unless allowed). */
  unanswered: string[];
  /** Each broken rule, in words; empty when the transcript is intact. */
  problems: string[];
}

/** Options of {@link checkTranscript}. */
export interface CheckOptions {
  /** Walk the chain from this line. @default the one line no other line names as parent */
  leafUuid?: string;
  /** Torn lines are tolerated (a kill -9 mid-write), not reported as problems. @default false */
  allowTornLines?: boolean;
  /**
   * tool_use ids that may lack a tool_result: calls cut off by a store that could not be
   * written (their answer could not be stored anywhere). @default none
   */
  allowUnanswered?: readonly string[];
}

interface Line {
  uuid: string;
  parentUuid: string | null;
  type: string;
  content: unknown;
  lineNo: number;
}

type Block = Record<string, unknown>;

function blocksOf(line: Line): Block[] {
  return Array.isArray(line.content) ? (line.content as Block[]) : [];
}

function isPrompt(line: Line): boolean {
  if (line.type !== 'user') return false;
  return typeof line.content === 'string' || !blocksOf(line).some((b) => b['type'] === 'tool_result');
}

/**
 * Checks a session transcript file:
 * - every line is JSON with a uuid, and no uuid appears twice;
 * - every tool_use id appears once, and has exactly one tool_result (and every tool_result has
 *   its tool_use);
 * - the parentUuid chain from the leaf reaches the first prompt (the file's first line) with no
 *   missing parent and no cycle, every line of the file is on it (no lost branch), and each
 *   tool_result sits after its tool_use and before the next model message.
 */
export function checkTranscriptText(text: string, opts: CheckOptions = {}): TranscriptReport {
  const problems: string[] = [];
  const lines: Line[] = [];
  let tornLines = 0;
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      tornLines++;
      if (!opts.allowTornLines) problems.push(`line ${i + 1} is not JSON (${raw.length} bytes): a torn write`);
      return;
    }
    if (typeof v['uuid'] !== 'string') {
      problems.push(`line ${i + 1} has no uuid`);
      return;
    }
    const message = v['message'] as { content?: unknown } | undefined;
    lines.push({
      uuid: v['uuid'],
      parentUuid: typeof v['parentUuid'] === 'string' ? v['parentUuid'] : null,
      type: String(v['type']),
      content: message?.content,
      lineNo: i + 1,
    });
  });

  const byUuid = new Map<string, Line>();
  for (const l of lines) {
    const prev = byUuid.get(l.uuid);
    if (prev) problems.push(`uuid ${l.uuid} is on lines ${prev.lineNo} and ${l.lineNo} (duplicate message)`);
    else byUuid.set(l.uuid, l);
  }

  // tool_use ↔ tool_result pairing.
  const useLine = new Map<string, Line>();
  const resultLines = new Map<string, Line[]>();
  let toolUses = 0;
  let toolResults = 0;
  for (const l of byUuid.values()) {
    for (const b of blocksOf(l)) {
      if (l.type === 'assistant' && b['type'] === 'tool_use') {
        toolUses++;
        const id = String(b['id']);
        if (useLine.has(id)) problems.push(`tool_use ${id} appears twice`);
        useLine.set(id, l);
      } else if (l.type === 'user' && b['type'] === 'tool_result') {
        toolResults++;
        const id = String(b['tool_use_id']);
        resultLines.set(id, [...(resultLines.get(id) ?? []), l]);
      }
    }
  }
  const allowed = new Set(opts.allowUnanswered ?? []);
  const unanswered: string[] = [];
  for (const id of useLine.keys()) {
    const n = resultLines.get(id)?.length ?? 0;
    if (n === 0) unanswered.push(id);
    if (n !== 1 && !(n === 0 && allowed.has(id))) {
      problems.push(`tool_use ${id} has ${n} tool_results (expected exactly 1)`);
    }
  }
  for (const id of resultLines.keys()) {
    if (!useLine.has(id)) problems.push(`tool_result for ${id} has no tool_use`);
  }

  // The chain from the leaf to the first prompt.
  let leafUuid = opts.leafUuid ?? null;
  if (leafUuid === null) {
    const parents = new Set([...byUuid.values()].map((l) => l.parentUuid));
    const leaves = [...byUuid.values()].filter((l) => !parents.has(l.uuid));
    if (leaves.length !== 1) {
      problems.push(`expected one leaf, found ${leaves.length}: ${leaves.map((l) => l.uuid).join(', ')}`);
    }
    leafUuid = leaves[leaves.length - 1]?.uuid ?? null;
  }
  const chain: Line[] = [];
  const seen = new Set<string>();
  for (let uuid = leafUuid; uuid !== null;) {
    if (seen.has(uuid)) {
      problems.push(`the parentUuid chain loops at ${uuid}`);
      break;
    }
    seen.add(uuid);
    const l = byUuid.get(uuid);
    if (!l) {
      problems.push(`the parentUuid chain is broken: ${uuid} is not in the file (lost message)`);
      break;
    }
    chain.push(l);
    uuid = l.parentUuid;
  }
  chain.reverse();
  const first = lines[0];
  if (first && chain[0] && chain[0].uuid !== first.uuid) {
    problems.push(`the chain starts at line ${chain[0].lineNo}, not at the first prompt (line ${first.lineNo})`);
  }
  if (chain[0] && !isPrompt(chain[0])) problems.push(`the chain starts with a ${chain[0].type} line, not a prompt`);
  for (const l of byUuid.values()) {
    if (!seen.has(l.uuid)) problems.push(`line ${l.lineNo} (${l.type} ${l.uuid}) is not on the chain (lost branch)`);
  }
  // Results of a model message come after it and before the next model message.
  let open = new Set<string>();
  for (const l of chain) {
    if (l.type === 'assistant' || isPrompt(l)) {
      for (const id of allowed) open.delete(id);
      if (open.size > 0) problems.push(`tool_use ${[...open].join(', ')} unanswered before line ${l.lineNo}`);
      open = new Set(
        blocksOf(l)
          .filter((b) => b['type'] === 'tool_use')
          .map((b) => String(b['id'])),
      );
    } else {
      for (const b of blocksOf(l)) {
        if (b['type'] !== 'tool_result') continue;
        const id = String(b['tool_use_id']);
        if (!open.delete(id)) problems.push(`tool_result for ${id} on line ${l.lineNo} is out of place`);
      }
    }
  }
  for (const id of allowed) open.delete(id);
  if (open.size > 0) problems.push(`tool_use ${[...open].join(', ')} unanswered at the end of the chain`);

  return {
    lines: lines.length,
    tornLines,
    toolUses,
    toolResults,
    chainLength: chain.length,
    leafUuid,
    unanswered,
    problems,
  };
}

/** {@link checkTranscriptText} on `<dataDir>/sessions/<sessionId>.jsonl`. */
export function checkTranscript(dataDir: string, sessionId: string, opts: CheckOptions = {}): TranscriptReport {
  return checkTranscriptText(readFileSync(transcriptPath(dataDir, sessionId), 'utf8'), opts);
}
