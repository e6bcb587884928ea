/**
 * A session's definitions (custom commands, skills, agents, plugins: src/config-files/definitions)
 * in its content blobs, by content key: the client stores them once per distinct catalog, turn
 * options carry the key, and the activities that expand a command, load a skill or list skills
 * read them back. Content-addressed, so a key always means the same catalog: a read is cached
 * per process.
 */
import type { Definitions } from '../config-files/definitions/types';
import { DEFINITIONS_VERSION } from '../config-files/definitions/types';
import { getContextContent, putContextContent } from './context-content';
import type { TranscriptStore } from './transcript-store';

/** Stores a catalog; returns its key (`context/definitions/<sha256>`). */
export function putDefinitions(store: TranscriptStore, sessionId: string, defs: Definitions): Promise<string> {
  return putContextContent(store, sessionId, 'definitions', JSON.stringify(defs));
}

/** Thrown for a stored catalog this version cannot read (a newer schema). */
export class DefinitionsVersionError extends Error {
  override readonly name = 'DefinitionsVersionError';
}

const cache = new Map<string, Definitions>();
const MAX_CACHED = 64;

/**
 * The catalog stored under `key`.
 * @throws MissingContextContentError when nothing is stored under it; DefinitionsVersionError for a newer schema
 */
export async function getDefinitions(store: TranscriptStore, sessionId: string, key: string): Promise<Definitions> {
  const hit = cache.get(key);
  if (hit) return hit;
  const defs = JSON.parse(await getContextContent(store, sessionId, key)) as Definitions;
  if (defs.v > DEFINITIONS_VERSION) {
    throw new DefinitionsVersionError(
      `definitions ${key} have schema version ${defs.v}; this version reads ${DEFINITIONS_VERSION}`,
    );
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, defs);
  return defs;
}
