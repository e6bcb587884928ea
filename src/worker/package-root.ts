import * as path from 'node:path';
import { packageRoot } from '../client/package-root';

export { packageRoot };

/** The `agent-runner` bin script of this package. */
export function binPath(): string {
  return path.join(packageRoot(), 'bin', 'agent-runner.js');
}
