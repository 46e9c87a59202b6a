// npm side of bench/asar/run.sh, using @electron/asar as an application would.
//
//   node npm.cjs verify <archive>          listPackage, read every file, check hash and blocks
//   node npm.cjs extract <archive> <dir>   extractAll
//
// Each prints "<mode> <bytes> <seconds>".
'use strict';
const crypto = require('crypto');
const asar = require('@electron/asar');

const [mode, archive, out] = process.argv.slice(2);
let total = 0;
if (mode === 'extract') {
  for (const p of asar.listPackage(archive)) {
    const info = asar.statFile(archive, p.slice(1), false);
    if (!('files' in info) && !('link' in info)) total += info.size;
  }
  asar.uncacheAll(); // time extractAll from a cold header, like verify
}
const start = process.hrtime.bigint();
if (mode === 'verify') {
  for (const p of asar.listPackage(archive)) {
    const name = p.slice(1);
    const info = asar.statFile(archive, name, false);
    if ('files' in info || 'link' in info) continue;
    const buf = asar.extractFile(archive, name, false);
    total += buf.length;
    const ig = info.integrity;
    if (crypto.createHash('sha256').update(buf).digest('hex') !== ig.hash) throw new Error(name + ': hash mismatch');
    let i = 0;
    for (let off = 0; ; off += ig.blockSize, i++) {
      const block = buf.subarray(off, Math.min(off + ig.blockSize, buf.length));
      if (crypto.createHash('sha256').update(block).digest('hex') !== ig.blocks[i]) throw new Error(name + ': block ' + i + ' mismatch');
      if (off + ig.blockSize > buf.length) break;
    }
    if (i + 1 !== ig.blocks.length) throw new Error(name + ': block count');
  }
} else if (mode === 'extract') {
  asar.extractAll(archive, out);
} else {
  throw new Error('unknown mode ' + mode);
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`npm-${mode} ${total} ${secs.toFixed(6)}`);
