/** Transcript storage: the interface and its default JSONL backend. */
export { TranscriptChainError, type TranscriptStore } from './transcript-store';
export {
  InvalidTranscriptIdError,
  JsonlTranscriptStore,
  TranscriptCycleError,
  sessionsDir,
  transcriptPath,
  type JsonlTranscriptStoreOptions,
} from './jsonl-store';
