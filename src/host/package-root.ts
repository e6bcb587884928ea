import * as fs from 'node:fs';
import * as path from 'node:path';

/** The nearest directory at or above `from` that has a package.json: this package's root. */
export function packageRoot(from: string = __dirname): string {
  let dir = path.resolve(from);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
}

/** The `agent-runner` bin script of this package. */
export function binPath(): string {
  return path.join(packageRoot(), 'bin', 'agent-runner.js');
}
