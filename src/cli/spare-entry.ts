/**
 * Entry script of a spare client process (started by `src/host/spare-pool.ts`): loads what a `-p`
 * run loads, then waits for a run handed over by the server (`src/host/spare-client.ts`) and runs
 * it through the CLI's `main`.
 */
import { runSpare } from '../host/spare-client';
import { main } from './main';
// What a `-p` run loads, loaded now: the point of a spare.
import './commands/print';
import '../config';
import '../host/background';

if (require.main === module) runSpare(main);
