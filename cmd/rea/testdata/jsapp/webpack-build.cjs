// Builds a small app with the pinned webpack (package.json at the
// repository root) for TestJSAppRealWebpack:
//   node webpack-build.cjs SRC_DIR OUT_DIR production|development [TARGET [DEVTOOL [runtime]]]
// DEVTOOL none leaves webpack's default (eval in development). runtime puts
// webpack's runtime in its own file (optimization.runtimeChunk single):
// runtime.js and main.js, with the other chunks under chunks/.
const path = require('path');
const webpack = require('webpack');
const [src, out, mode, target, devtool, runtime] = process.argv.slice(2);
webpack({
  mode, context: src, entry: './index.js', target: target || 'web',
  ...(devtool === 'none' ? {} : { devtool: devtool || 'source-map' }),
  ...(runtime === 'runtime' ? { optimization: { runtimeChunk: 'single' } } : {}),
  output: runtime === 'runtime'
    ? { path: out, filename: '[name].js', chunkFilename: 'chunks/[name].chunk.js' }
    : { path: out, filename: 'main.js', chunkFilename: '[name].chunk.js' },
}, (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err || stats.toString());
    process.exit(1);
  }
});
