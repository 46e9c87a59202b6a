// Fixture for the V8 inspector lane: an ES module that imports another ES
// module and a CommonJS module, starts a worker thread and imports a module
// dynamically, then stays alive until its stdin closes.
import { Worker } from 'node:worker_threads';
import { greet } from './lib/esm.mjs';
import common from './lib/common.cjs';

const worker = new Worker(new URL('./lib/worker.mjs', import.meta.url));
const lazy = await import('./lib/lazy.mjs');
worker.on('message', () => {
  process.stdout.write('ready ' + greet(common.name) + ' ' + lazy.value + '\n');
});
const keep = setInterval(() => {}, 1000);
process.stdin.on('end', () => { clearInterval(keep); worker.terminate(); });
process.stdin.resume();
