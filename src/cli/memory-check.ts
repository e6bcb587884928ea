import type { SettingSource } from '../common/context';
import { SETTING_SOURCES } from '../common/context';
import { claudeConfigDir } from '../config-files/settings';
import {
  loadProjectMemory,
  loadUserMemory,
  MemoryImportCycleError,
  repositoryRoot,
} from '../config-files/memory-files';
import { UsageError } from './turn-options';

/**
 * Checks the memory files a new session will read, before anything starts: an import cycle is a
 * usage error (exit 2, naming the files); warnings about the project's files (cut to the limits,
 * imports not followed) are printed. The worker reads the same files when the turn starts; the
 * user's own memory is read (and warned about) by the QueryEngine.
 * @throws UsageError on an import cycle.
 */
export async function checkMemoryFiles(
  cwd: string,
  sources: readonly SettingSource[] | undefined,
  warn: (line: string) => void,
): Promise<void> {
  const wanted = new Set(sources ?? SETTING_SOURCES);
  try {
    if (wanted.has('project') || wanted.has('local')) {
      const load = await loadProjectMemory({
        cwd,
        root: (await repositoryRoot(cwd)) ?? cwd,
        sources: { project: wanted.has('project'), local: wanted.has('local') },
      });
      for (const w of load.warnings) warn(`agent-runner: ${w}`);
    }
    if (wanted.has('user')) await loadUserMemory({ configDir: claudeConfigDir() });
  } catch (e) {
    if (e instanceof MemoryImportCycleError) throw new UsageError(e.message);
    throw e;
  }
}
