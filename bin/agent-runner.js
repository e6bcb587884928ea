#!/usr/bin/env node
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const dist = path.join(__dirname, '..', 'dist', 'src');
const entry = path.join(dist, 'cli', 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('agent-runner: not built yet; run `npm run build` in ' + path.join(__dirname, '..') + '\n');
  process.exit(2);
}
const runHere = () => require(entry).runBinary(process.argv);
// A `-p` run first offers itself to a spare client process of the shared server, which has the
// client code loaded already (src/host/thin-client.ts); when none takes it, it runs here.
const thin = require(path.join(dist, 'host', 'thin-client.js'));
thin.runOnSpare(process.argv).then(
  (outcome) => {
    if (outcome === null) return runHere();
    if (outcome.closedOutput) process.exit(outcome.code);
    setTimeout(() => process.exit(outcome.code), 10000).unref(); // a reader that never reads again
    process.stdout.write('', () =>
      process.stderr.write('', () => {
        // Ended by a signal it had no handler for: end the same way.
        if (outcome.signal) {
          process.removeAllListeners(outcome.signal);
          process.kill(process.pid, outcome.signal);
        }
        process.exit(outcome.code);
      }),
    );
  },
  () => runHere(),
);
