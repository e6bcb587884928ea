#!/usr/bin/env node
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const dist = path.join(__dirname, '..', 'dist', 'src', 'cli');
const entry = path.join(dist, 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('agent-runner: not built yet; run `npm run build` in ' + path.join(__dirname, '..') + '\n');
  process.exit(2);
}
const runHere = () => require(entry).runBinary(process.argv);
// A `-p` run first offers itself to a spare client process of the shared server, which has the
// client code loaded already (src/cli/thin-client.ts); when none takes it, it runs here.
const thin = require(path.join(dist, 'thin-client.js'));
thin.runOnSpare(process.argv).then(
  (code) => {
    if (code === null) return runHere();
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  },
  () => runHere(),
);
