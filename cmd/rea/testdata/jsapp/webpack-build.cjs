// Builds a small app with the pinned webpack (package.json at the
// repository root) for TestJSAppRealWebpack:
//   node webpack-build.cjs SRC_DIR OUT_DIR production|development [TARGET [DEVTOOL [LAYOUT]]]
// DEVTOOL none leaves webpack's default (eval in development). LAYOUT
// places the files: runtime puts webpack's runtime in its own file
// (optimization.runtimeChunk single), runtime.js beside main.js, with the
// other chunks under chunks/; static writes main.js and the chunks under
// static/js/, and static-runtime the runtime there too; named writes the
// chunks beside main.js as [name].[contenthash].js, and named-runtime
// adds the runtime file. By default main.js holds the runtime and the
// chunks are beside it.
const webpack = require('webpack');
const [src, out, mode, target, devtool, layout] = process.argv.slice(2);
const layouts = {
  runtime: { runtimeChunk: 'single', filename: '[name].js', chunkFilename: 'chunks/[name].chunk.js' },
  static: { filename: 'static/js/[name].js', chunkFilename: 'static/js/[name].chunk.js' },
  'static-runtime': { runtimeChunk: 'single', filename: 'static/js/[name].js', chunkFilename: 'static/js/[name].chunk.js' },
  named: { filename: '[name].js', chunkFilename: '[name].[contenthash].js' },
  'named-runtime': { runtimeChunk: 'single', filename: '[name].js', chunkFilename: '[name].[contenthash].js' },
};
const l = layouts[layout] || { filename: 'main.js', chunkFilename: '[name].chunk.js' };
webpack({
  mode, context: src, entry: './index.js', target: target || 'web',
  ...(devtool === 'none' ? {} : { devtool: devtool || 'source-map' }),
  ...(l.runtimeChunk ? { optimization: { runtimeChunk: l.runtimeChunk } } : {}),
  output: { path: out, filename: l.filename, chunkFilename: l.chunkFilename },
}, (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err || stats.toString());
    process.exit(1);
  }
});
