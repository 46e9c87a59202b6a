// Drives npm's @electron/asar for rea's interop tests.
//
//   node asar.cjs pack <src> <dest> [unpack] [unpackDir]   createPackageWithOptions (integrity on;
//                                                  an empty argument means unset)
//   node asar.cjs order <src>                      crawl order as JSON [{path, type, mode}]
//   node asar.cjs list <archive>                   listPackage as JSON
//   node asar.cjs extract <archive> <dest>         extractAll
//   node asar.cjs header <archive>                 the raw header JSON string
'use strict';
const path = require('path');
const asar = require('@electron/asar');
const { crawl } = require('@electron/asar/lib/crawlfs');

async function main() {
  const [cmd, a, b, c, d] = process.argv.slice(2);
  switch (cmd) {
    case 'pack':
      const opts = {};
      if (c) opts.unpack = c;
      if (d) opts.unpackDir = d;
      await asar.createPackageWithOptions(a, b, opts);
      break;
    case 'order': {
      const src = path.normalize(a);
      const [names, meta] = await crawl(src + '/**/*', { dot: true });
      const out = names.map((n) => ({
        path: path.relative(src, path.normalize(n)).split(path.sep).join('/'),
        type: meta[n].type,
        mode: meta[n].stat.mode,
      }));
      process.stdout.write(JSON.stringify(out));
      break;
    }
    case 'list':
      process.stdout.write(JSON.stringify(asar.listPackage(a)));
      break;
    case 'extract':
      asar.extractAll(a, b);
      break;
    case 'header':
      process.stdout.write(asar.getRawHeader(a).headerString);
      break;
    default:
      throw new Error('unknown command ' + cmd);
  }
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
