#!/usr/bin/env node
/**
 * CLI of the fake model server: `npm run fake-model -- --scenario FILE [--port N] [--host H] [--log FILE]`.
 *
 * Prints `fake-model listening on http://HOST:PORT` as its first stdout line, one line per
 * request on stderr, and stops cleanly on SIGINT/SIGTERM (exit code 0). Exit code 1 on a bad
 * option, 2 on a bad scenario file or when the port cannot be bound.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { RequestLogEntry } from './request-log';
import { startFakeModelServer } from './server';

function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

/** One stderr line for a log entry. */
export function formatLogLine(e: RequestLogEntry): string {
  const cache =
    e.cacheReadTokens + e.cacheCreationTokens > 0
      ? ` cache_read=${e.cacheReadTokens} cache_write=${e.cacheCreationTokens}`
      : '';
  const err = e.error !== undefined ? ` error=${JSON.stringify(e.error.slice(0, 200))}` : '';
  return (
    `#${e.seq} ${e.outcome} status=${e.status} conv=${e.conversationKey} script=${e.script} ` +
    `step=${e.step} attempt=${e.attempt} msgs=${e.messagesCount} in=${e.inputTokens} ` +
    `out=${e.outputTokens}${cache} ${e.durationMs}ms${err}`
  );
}

interface CliOptions {
  scenario: string;
  port: number;
  host: string;
  log?: string;
  latency: number;
  contextWindow?: number;
  quiet?: boolean;
  rpm?: number;
  itpm?: number;
  otpm?: number;
}

async function main(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('fake-model')
    .description('Local server speaking the Anthropic Messages API that replays a scenario file.')
    .addHelpText(
      'after',
      [
        '',
        'Serves POST /v1/messages (SSE when stream: true, else JSON), GET /_fake/log (request log),',
        'POST /_fake/reset. The first stdout line is "fake-model listening on http://HOST:PORT".',
        'Point a client at it:',
        '  ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=dummy agent-runner ...',
        'Scenario format, faults and templates: docs/fake-model.md',
      ].join('\n'),
    )
    .requiredOption('-s, --scenario <file>', 'scenario file (YAML or JSON)')
    .option('-p, --port <n>', 'port to listen on (0 = a free port)', parseNonNegativeInt, 0)
    .option('-H, --host <host>', 'interface to listen on', '127.0.0.1')
    .option('-l, --log <file>', 'also append each request log entry to this JSONL file')
    .option('--latency <ms>', 'delay before every response, in ms', parseNonNegativeInt, 0)
    .option('--context-window <tokens>', 'answer larger prompts with 400 "prompt is too long"', parseNonNegativeInt)
    .option('--rpm <n>', 'requests per minute (429 beyond; anthropic-ratelimit-* headers)', parseNonNegativeInt)
    .option('--itpm <n>', 'input tokens per minute', parseNonNegativeInt)
    .option('--otpm <n>', 'output tokens per minute', parseNonNegativeInt)
    .option('-q, --quiet', 'do not print one line per request on stderr')
    .showHelpAfterError('(run with --help for usage)')
    .parse(argv as string[], { from: 'node' });
  const o = program.opts<CliOptions>();

  const server = await startFakeModelServer({
    scenarioPath: o.scenario,
    host: o.host,
    port: o.port,
    latencyMs: o.latency,
    ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
    ...(o.log !== undefined ? { logPath: o.log } : {}),
    rateLimits: {
      ...(o.rpm !== undefined ? { requestsPerMinute: o.rpm } : {}),
      ...(o.itpm !== undefined ? { inputTokensPerMinute: o.itpm } : {}),
      ...(o.otpm !== undefined ? { outputTokensPerMinute: o.otpm } : {}),
    },
    ...(o.quiet === true ? {} : { onRequest: (e: RequestLogEntry) => process.stderr.write(`${formatLogLine(e)}\n`) }),
  });
  process.stdout.write(`fake-model listening on ${server.baseUrl}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`fake-model: ${signal}, stopping\n`);
    const force = setTimeout(() => process.exit(1), 3000);
    force.unref();
    void server.close().then(() => {
      process.exitCode = 0;
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main(process.argv).catch((e: unknown) => {
  process.stderr.write(`fake-model: ${(e as Error).message}\n`);
  process.exit(2);
});
