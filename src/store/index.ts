/** Transcript storage: the interface, content blobs, and the default JSONL backend. */
export { FileStreamEventChannel, STREAM_EVENTS_TTL_MS } from './stream-events';
export type { StreamEventChannel, StreamEventsRead, StreamEventWriter } from './stream-events';
export { TranscriptChainError, type TranscriptStore } from './transcript-store';
export {
  CONTENT_CHUNK_BYTES,
  ContentTooLargeError,
  DEFAULT_MAX_CONTENT_BYTES,
  InvalidContentKeyError,
  type ContentBody,
  type ContentInfo,
  type PutContentOptions,
  type PutContentResult,
} from './content';
export {
  InvalidTranscriptIdError,
  JsonlTranscriptStore,
  TranscriptCycleError,
  sessionsDir,
  transcriptPath,
  type JsonlTranscriptStoreOptions,
} from './jsonl-store';
