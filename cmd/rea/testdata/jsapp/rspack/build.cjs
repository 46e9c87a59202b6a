const { rspack } = require('@rspack/core');
const path = require('path');
const [mode, devtool] = process.argv.slice(2);
rspack({ mode, entry: './src/index.js', context: __dirname, ...(devtool === 'none' ? {} : { devtool: devtool || 'source-map' }),
  output: { path: path.join(__dirname, 'dist-' + mode + '-' + (devtool||'sm')), filename: 'main.js' } }, (err, stats) => {
  if (err || stats.hasErrors()) { console.error(err || stats.toString()); process.exit(1); }
});
