// Fixture for load states of bundled code: the application loads only the
// bundle (dist/bundle.js, built by esbuild from src/ with a linked source
// map); the original sources are never loaded themselves, so they are
// resident in the loaded bundle. It stays alive until its stdin closes.
// Rebuild the bundle with: npx esbuild src/index.js --bundle --platform=node
//   --format=cjs --sourcemap --outfile=dist/bundle.js
const bundle = require('./dist/bundle.js');

process.stdout.write('ready ' + bundle.total([1, 2, 3]) + '\n');
const keep = setInterval(() => {}, 1000);
process.stdin.on('end', () => clearInterval(keep));
process.stdin.resume();
