// Builds a small app with the pinned webpack (package.json at the
// repository root) for TestJSAppRealWebpack:
//   node webpack-build.cjs SRC_DIR OUT_DIR production|development [TARGET]
const path = require('path');
const webpack = require('webpack');
const [src, out, mode, target] = process.argv.slice(2);
webpack({
  mode, context: src, entry: './index.js', devtool: 'source-map', target: target || 'web',
  output: { path: out, filename: 'main.js', chunkFilename: '[name].chunk.js' },
}, (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err || stats.toString());
    process.exit(1);
  }
});
