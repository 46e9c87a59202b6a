// Builds a small app with the pinned webpack (package.json at the
// repository root) for TestJSAppRealWebpack:
//   node webpack-build.cjs SRC_DIR OUT_DIR production|development [TARGET [DEVTOOL]]
// DEVTOOL none leaves webpack's default (eval in development).
const path = require('path');
const webpack = require('webpack');
const [src, out, mode, target, devtool] = process.argv.slice(2);
webpack({
  mode, context: src, entry: './index.js', target: target || 'web',
  ...(devtool === 'none' ? {} : { devtool: devtool || 'source-map' }),
  output: { path: out, filename: 'main.js', chunkFilename: '[name].chunk.js' },
}, (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err || stats.toString());
    process.exit(1);
  }
});
