// Preloaded with `node --require` by start-up tests: at exit, writes the paths of every module the
// process loaded (require.cache) as JSON to the file named by LOADED_MODULES_OUT.
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  const out = process.env.LOADED_MODULES_OUT;
  if (out) fs.writeFileSync(out, JSON.stringify(Object.keys(require.cache)));
});
