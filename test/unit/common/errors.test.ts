/**
 * The kind of each of the runner's error classes decides the CLI's exit code (2 for usage and
 * configuration errors: nothing ran; 1 otherwise). The table below is every usage error class.
 */
import { WorkspaceExportError } from '../../../src/activities/workspace/export';
import { WorkspaceRootError } from '../../../src/activities/workspace/prepare';
import { main } from '../../../src/cli/main';
import { NoPromptError } from '../../../src/cli/stdin';
import { UsageError } from '../../../src/cli/usage-error';
import { JsonSchemaOptionError } from '../../../src/client/json-schema';
import { TemporalOutageError } from '../../../src/client/outage';
import { NoWorkerAnsweredError } from '../../../src/client/query-deadline';
import { EmptyPromptError } from '../../../src/client/query-engine';
import { AgentRunnerError, isUsageError } from '../../../src/common/errors';
import { ConfigError } from '../../../src/config/load';
import { HooksConfigError } from '../../../src/config-files/hooks';
import { McpConfigError } from '../../../src/config-files/mcp-config';
import { MemoryImportCycleError } from '../../../src/config-files/memory-files';
import { SettingsError } from '../../../src/config-files/settings';
import { NoServerError, TemporalUnreachableError } from '../../../src/connection/connect';
import { TemporalConnectionConfigError } from '../../../src/connection/temporal-connection';
import { BackgroundServerStartError } from '../../../src/host/background';
import { DevServerStartError, TemporalCliNotFoundError } from '../../../src/host/dev-server';
import { DataDirError, ModelKeyMissingError } from '../../../src/host/preflight';
import { EmbeddedServerBusyError } from '../../../src/host/server-lock';
import { UnknownSessionError } from '../../../src/store/copy';
import { InvalidTranscriptIdError } from '../../../src/store/ids';
import { StoreConnectionError, StoreSchemaError, StoreServerVersionError } from '../../../src/store/postgres/errors';
import { InvalidStoreUrlError } from '../../../src/store/postgres/url';

const USAGE_ERRORS: Error[] = [
  new ConfigError('/x/temporal.yaml', [{ path: 'temporal.address', message: 'bad' }]),
  new UsageError('--max-turns must be a positive integer'),
  new NoPromptError('no prompt'),
  new EmptyPromptError(),
  new TemporalCliNotFoundError(['PATH']),
  new EmbeddedServerBusyError('/data', 1234),
  new InvalidTranscriptIdError('session id', '../x'),
  new TemporalUnreachableError('cannot reach 127.0.0.1:1'),
  new DataDirError('/data is not writable'),
  new ModelKeyMissingError('ANTHROPIC_API_KEY is not set'),
  new SettingsError('bad settings'),
  new MemoryImportCycleError('/r/CLAUDE.md', ['a', 'b', 'a']),
  new TemporalConnectionConfigError('bad TLS'),
  new StoreConnectionError('postgres://u:***@h/db', 'ECONNREFUSED'),
  new StoreSchemaError('postgres://h/db', 9, 1),
  new StoreServerVersionError('PostgreSQL 9'),
  new InvalidStoreUrlError('not a URL'),
  new UnknownSessionError('no session s'),
  new JsonSchemaOptionError('not JSON'),
  new WorkspaceRootError('not writable'),
  new WorkspaceExportError('no snapshot'),
  new HooksConfigError('bad hooks'),
  new McpConfigError('bad mcp config'),
];

const RUNTIME_ERRORS: Error[] = [
  new TemporalOutageError('gone'),
  new NoServerError('agent-runner', '/data', null),
  new NoWorkerAnsweredError('wf', 10_000),
  new BackgroundServerStartError('did not come up'),
  new DevServerStartError('exited', []),
];

describe('error kinds', () => {
  test.each(USAGE_ERRORS.map((e) => [e.name, e]))('error kinds: %s is a usage error (exit 2)', (_name, e) => {
    expect(e).toBeInstanceOf(AgentRunnerError);
    expect(isUsageError(e)).toBe(true);
  });

  test.each(RUNTIME_ERRORS.map((e) => [e.name, e]))('error kinds: %s is a runtime error (exit 1)', (_name, e) => {
    expect(e).toBeInstanceOf(AgentRunnerError);
    expect((e as AgentRunnerError).kind).toBe('runtime');
    expect(isUsageError(e)).toBe(false);
  });

  test('error kinds: an error of another class, or a usage error only by name, is not a usage error', () => {
    const named = Object.assign(new Error('x'), { name: 'UsageError' });
    expect(isUsageError(named)).toBe(false);
    expect(isUsageError(new TypeError('x'))).toBe(false);
    expect(isUsageError('UsageError')).toBe(false);
  });

  test('main: a usage error prints its message without a stack and exits 2', async () => {
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (lines.push(String(s)), true)) as typeof process.stderr.write;
    try {
      const code = await main(['node', 'agent-runner', 'batch', '/nonexistent/tasks.jsonl']);
      expect(code).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(lines.join('')).toBe('agent-runner: batch: task file /nonexistent/tasks.jsonl not found\n');
  });
});
