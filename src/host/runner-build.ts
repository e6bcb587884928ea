/**
 * Which agent-runner a process is: its version and its build, so that a client can tell whether
 * a shared server's worker runs the same code (docs/architecture.md, "Version skew"). The build
 * is 12 hex digits of the SHA-256 of the prebuilt workflow bundle's manifest
 * (`dist/workflow-bundle/manifest.json`, rewritten by every `npm run build`), or null where there
 * is no prebuilt bundle (the version alone then decides).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RUNNER_VERSION } from '../common/version';
import { packageRoot } from './package-root';
import { AgentRunnerError } from '../common/errors';

/** Version and build of an agent-runner install, as `server.json` records them. */
export interface RunnerIdentity {
  /** `RUNNER_VERSION` (the package version). */
  version: string;
  /** Build id (see the module comment), or null when unknown. */
  build: string | null;
}

let mine: RunnerIdentity | undefined;

/** This process's identity (read once). */
export function runnerIdentity(): RunnerIdentity {
  if (mine) return mine;
  let build: string | null = null;
  try {
    const manifest = fs.readFileSync(path.join(packageRoot(), 'dist', 'workflow-bundle', 'manifest.json'));
    build = createHash('sha256').update(manifest).digest('hex').slice(0, 12);
  } catch {
    build = null;
  }
  mine = { version: RUNNER_VERSION, build };
  return mine;
}

/** `agent-runner 0.1.0 (build 1a2b3c4d5e6f)`; `an agent-runner that does not record its version` for none. */
export function describeRunner(r: RunnerIdentity | undefined): string {
  if (!r) return 'an older agent-runner that does not record its version';
  return `agent-runner ${r.version}${r.build ? ` (build ${r.build})` : ''}`;
}

/**
 * Whether a server of identity `server` runs other code than `me`: another version, another
 * build (when both are known), or no recorded identity (a version before this check existed).
 */
export function runnerDiffers(server: RunnerIdentity | undefined, me: RunnerIdentity = runnerIdentity()): boolean {
  if (!server) return true;
  if (server.version !== me.version) return true;
  return server.build !== null && me.build !== null && server.build !== me.build;
}

/**
 * Thrown when a run would use a shared server whose worker runs another agent-runner (version or
 * build) and the server cannot be restarted (a foreground `agent-runner server`, or a background
 * server with turns running). The CLI prints it and exits 2; nothing was run.
 */
export class ServerVersionSkewError extends AgentRunnerError {
  override readonly name = 'ServerVersionSkewError';
  readonly kind = 'usage';
  constructor(server: { pid: number; mode?: string; runner?: RunnerIdentity }, me: RunnerIdentity, busy: boolean) {
    super(
      `the shared agent-runner server (pid ${server.pid}, ${server.mode ?? 'foreground'}) runs ` +
        `${describeRunner(server.runner)}, and this is ${describeRunner(me)}: its worker would run this turn ` +
        `with other code. ${
          server.mode === 'background' && busy
            ? 'It is running turns, so it is not restarted now: run again once they end (an idle server is restarted), '
            : ''
        }stop it with \`agent-runner server stop\` (running turns continue when a server runs again), ` +
        'or run this one with --no-daemon.',
    );
  }
}
