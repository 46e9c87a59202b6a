'use strict';
// A stand-in for the Electron executable for tests where no Electron
// runtime exists: it runs `-r <hook> <app>` in Node with a small fake of
// the electron module (app, ipcMain, BrowserWindow, webContents, shell,
// session) and a tiny renderer emulation: ids in the page's HTML become
// clickable elements, each page load runs the session's preload scripts
// (rea's hook among them) and then the window's preload, each with a
// renderer-side electron module (contextBridge, ipcRenderer) and a
// renderer `process` (type "renderer"); ipcRenderer routes to the main
// process's handlers and listeners, webContents.send to the renderer's
// listeners. Each renderer is stood for by an owned child process (`sleep`)
// whose pid the renderer reports; a crash kills it, a reload after a crash
// starts another. Flags: --flood=n sends n IPC messages at start;
// --fake-no-renderer-hook runs no session preloads (a renderer the hook
// cannot attach to); --fake-freeze-on-deep-link makes the main process
// spin forever on an open-url deep link (an application that hangs
// mid-scenario); --fake-exit-on-deep-link=N makes it exit with code N
// there, --fake-kill-on-deep-link kill itself with SIGKILL.
const Module = require('node:module');
const path = require('node:path');
const fs = require('node:fs');
const vm = require('node:vm');
const { EventEmitter } = require('node:events');

const argv = process.argv.slice(2);
let hook = null;
const rest = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '-r') hook = argv[++i];
  else rest.push(argv[i]);
}
const appDir = rest.find((a) => !a.startsWith('--'));

const childProcess = require('node:child_process');
const noRendererHook = rest.includes('--fake-no-renderer-hook');

const app = new EventEmitter();
let ready;
const readyP = new Promise((r) => { ready = r; });
app.whenReady = () => readyP;
app.quit = () => process.exit(0);
const ipcMain = new EventEmitter();
const handlers = new Map();
ipcMain.handle = (ch, fn) => handlers.set(ch, fn);
ipcMain.handleOnce = ipcMain.handle;
const shell = { openExternal: async () => {}, openPath: async () => '' };
const session = new EventEmitter();
session.setPermissionRequestHandler = () => {};
let sessionPreloads = [];
session.registerPreloadScript = (s) => { sessionPreloads.push(s.filePath); return s.id; };
session.getPreloads = () => sessionPreloads.slice();
session.setPreloads = (l) => { sessionPreloads = l.slice(); };
const contents = new Map();
const windows = [];
let nextId = 1;

class WebContents extends EventEmitter {
  constructor(win) { super(); this.id = nextId++; this.url = ''; this.win = win; this.session = session; this.crashed = false; this.child = null; contents.set(this.id, this); }
  getURL() { return this.url; }
  getOSProcessId() { return this.child ? this.child.pid : 0; }
  isCrashed() { return this.crashed; }
  isDestroyed() { return false; }
  send(ch, ...args) {
    const r = this.win.renderer;
    if (r) setImmediate(() => r.ipcRenderer.emit(ch, { sender: null }, ...args));
  }
  async executeJavaScript(code) {
    if (this.crashed || !this.win.renderer) throw new Error('renderer_crashed');
    return vm.runInContext(code, this.win.renderer.ctx);
  }
  reload() { setImmediate(() => this.win.load()); }
  forcefullyCrashRenderer() {
    if (this.child) { this.child.kill('SIGKILL'); this.child = null; }
    this.crashed = true;
    this.win.renderer = null;
    setImmediate(() => this.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 9 }));
  }
  setWindowOpenHandler() {}
}
class BrowserWindow extends EventEmitter {
  constructor(opts) {
    super();
    this.id = windows.length + 1;
    this.opts = opts || {};
    this.webContents = new WebContents(this);
    windows.push(this);
    app.emit('web-contents-created', {}, this.webContents);
    app.emit('browser-window-created', {}, this);
  }
  static getAllWindows() { return windows.slice(); }
  static fromWebContents(wc) { return windows.find((w) => w.webContents === wc) || null; }
  isDestroyed() { return false; }
  getTitle() { return this.title || ''; }
  isVisible() { return false; }
  loadFile(file) {
    this.file = file;
    this.webContents.url = 'file://' + file;
    this.load();
    return Promise.resolve();
  }
  load() {
    const wc = this.webContents;
    wc.emit('did-start-loading');
    if (!wc.child) wc.child = childProcess.spawn('sleep', ['600'], { stdio: 'ignore' });
    wc.crashed = false;
    const html = fs.readFileSync(this.file, 'utf8');
    const t = /<title>([^<]*)<\/title>/.exec(html);
    this.title = t ? t[1] : '';
    this.renderer = renderer(this, this.file, html);
    setImmediate(() => wc.emit('did-finish-load'));
  }
}
// runPreload runs a preload file as a sandboxed preload: require gives the
// renderer's electron module and a few harmless builtins only.
function runPreload(file, rendererElectron, rendererProcess) {
  const req = (n) => {
    if (n === 'electron') return rendererElectron;
    if (['events', 'timers', 'url', 'node:events', 'node:timers', 'node:url'].includes(n)) return require(n);
    throw new Error('module not found in a sandboxed preload: ' + n);
  };
  const fn = new Function('require', 'module', 'exports', '__filename', '__dirname', 'process', fs.readFileSync(file, 'utf8'));
  fn(req, { exports: {} }, {}, file, path.dirname(file), rendererProcess);
}
function renderer(win, file, html) {
  const elements = new Map();
  for (const m of html.matchAll(/id="([^"]+)"/g)) {
    const listeners = [];
    elements.set(m[1], { addEventListener: (t, fn) => { if (t === 'click') listeners.push(fn); }, click: () => listeners.forEach((f) => f({})) });
  }
  const document = { getElementById: (id) => elements.get(id) || null, querySelector: (s) => (s.startsWith('#') ? elements.get(s.slice(1)) || null : null) };
  const ctx = vm.createContext({ document, console });
  ctx.window = ctx;
  const sender = win.webContents;
  const ipcRenderer = new EventEmitter();
  ipcRenderer.invoke = (ch, ...a) => { const h = handlers.get(ch); return h ? Promise.resolve(h({ sender }, ...a)) : Promise.reject(new Error('no handler')); };
  ipcRenderer.send = (ch, ...a) => { ipcMain.emit(ch, { sender }, ...a); };
  ipcRenderer.sendSync = (ch, ...a) => { const e = { sender, returnValue: undefined }; ipcMain.emit(ch, e, ...a); return e.returnValue; };
  ipcRenderer.postMessage = (ch, msg) => { ipcMain.emit(ch, { sender, ports: [] }, msg); };
  const contextBridge = { exposeInMainWorld: (k, v) => { ctx[k] = v; } };
  const rendererElectron = { contextBridge, ipcRenderer };
  const rendererProcess = { type: 'renderer', pid: sender.getOSProcessId(), sandboxed: true, versions: process.versions, env: {}, platform: process.platform };
  if (!noRendererHook) for (const pre of sessionPreloads) runPreload(pre, rendererElectron, rendererProcess);
  const pre = win.opts.webPreferences && win.opts.webPreferences.preload;
  if (pre) runPreload(pre, rendererElectron, rendererProcess);
  for (const m of html.matchAll(/<script src="([^"]+)"/g)) {
    vm.runInContext(fs.readFileSync(path.resolve(path.dirname(file), m[1]), 'utf8'), ctx);
  }
  return { ctx, ipcRenderer };
}
app.getAppMetrics = () => [{ pid: process.pid, type: 'Browser' }].concat(
  [...contents.values()].filter((wc) => wc.child).map((wc) => ({ pid: wc.child.pid, type: 'Tab' })));

const fake = { app, ipcMain, shell, session: { defaultSession: session }, BrowserWindow, webContents: { fromId: (id) => contents.get(id) } };
process.type = 'browser';
const load = Module._load;
Module._load = function (request, ...more) {
  if (request === 'electron') return fake;
  return load.call(this, request, ...more);
};
try { Object.defineProperty(process.versions, 'electron', { value: '0.0.0-fake', enumerable: true }); } catch (_) {}
if (hook) require(hook);
const pkg = JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8'));
require(path.join(appDir, pkg.main || 'index.js'));
if (rest.includes('--fake-freeze-on-deep-link')) app.on('open-url', () => { for (;;) {} });
const exitOn = rest.find((a) => a.startsWith('--fake-exit-on-deep-link='));
if (exitOn) app.on('open-url', () => process.exit(Number(exitOn.slice(25))));
if (rest.includes('--fake-kill-on-deep-link')) app.on('open-url', () => process.kill(process.pid, 'SIGKILL'));
setTimeout(() => {
  ready();
  const flood = rest.find((a) => a.startsWith('--flood='));
  const n = flood ? Number(flood.slice(8)) : 0;
  for (let i = 0; i < n; i++) ipcMain.emit('log:write', { sender: null }, { i });
}, 10);
setInterval(() => {}, 1000);
