'use strict';
/**
 * A worker process for the fault suite: the runner's own worker (`createRunnerWorker`, built in
 * dist/) configured from the environment like `agent-runner worker`, but with a short sticky-queue
 * timeout (FAULT_STICKY_MS, default 1000 ms) so that the workflow tasks of a killed worker move
 * to a new one after 1 s instead of 10 s. Prints `worker polling` on stderr once it polls; stops
 * on SIGTERM.
 *
 * FAULT_KILL_AT=stream-end: after the stream of every model response has ended, the worker prints
 * `fault: stream-end <callUuid> <attempt>` on stderr and stops there, for the test to kill -9 it.
 * FAULT_SILENT_ATTEMPTS=1: the first attempt of every model call sends no heartbeat (a worker
 * cut off from Temporal but not from the API), so Temporal runs a second attempt beside it.
 */
const path = require('node:path');
const { NativeConnection } = require('@temporalio/worker');

const dist = path.join(__dirname, '..', '..', '..', 'dist', 'src');
const { loadConfig } = require(path.join(dist, 'config'));
const { JsonlTranscriptStore } = require(path.join(dist, 'store', 'jsonl-store'));
const { createRunnerWorker } = require(path.join(dist, 'worker', 'worker'));
const { installRuntimeLogging } = require(path.join(dist, 'worker', 'logging'));

async function main() {
  installRuntimeLogging('WARN');
  const config = loadConfig({ env: process.env });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const store = new JsonlTranscriptStore(config.dataDir, {
    onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
  });
  const modelFaults = {};
  if (process.env.FAULT_KILL_AT === 'stream-end') {
    modelFaults.afterStreamEnd = ({ callUuid, attempt }) => {
      process.stderr.write(`fault: stream-end ${callUuid} ${attempt}\n`);
      return new Promise(() => undefined); // held here until the test kills the process
    };
  }
  const silent = Number(process.env.FAULT_SILENT_ATTEMPTS || 0);
  if (silent > 0) modelFaults.silentHeartbeats = ({ attempt }) => attempt <= silent;
  const worker = await createRunnerWorker({
    connection,
    config,
    store,
    env: process.env,
    modelFaults,
    stickyQueueScheduleToStartTimeoutMs: Number(process.env.FAULT_STICKY_MS || 1000),
  });
  process.once('SIGTERM', () => worker.shutdown());
  const run = worker.run();
  process.stderr.write(`worker polling (pid ${process.pid})\n`);
  await run;
  await connection.close();
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  },
);
