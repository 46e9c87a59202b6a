'use strict';
// A stand-in for the Electron executable for tests where no Electron
// runtime exists: it runs `-r <hook> <app>` in Node with a small fake of
// the electron module (app, ipcMain, BrowserWindow, webContents, shell,
// session) and a tiny renderer emulation (ids in the page's HTML become
// clickable elements; the preload's contextBridge and ipcRenderer route to
// the main process's handlers). REA_FAKE_FLOOD=n makes the app send n IPC
// messages at start.
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

const app = new EventEmitter();
let ready;
const readyP = new Promise((r) => { ready = r; });
app.whenReady = () => readyP;
app.getAppMetrics = () => [{ pid: process.pid, type: 'Browser' }];
app.quit = () => process.exit(0);
const ipcMain = new EventEmitter();
const handlers = new Map();
ipcMain.handle = (ch, fn) => handlers.set(ch, fn);
ipcMain.handleOnce = ipcMain.handle;
const shell = { openExternal: async () => {}, openPath: async () => '' };
const session = new EventEmitter();
session.setPermissionRequestHandler = () => {};
const contents = new Map();
const windows = [];
let nextId = 1;

class WebContents extends EventEmitter {
  constructor(win) { super(); this.id = nextId++; this.url = ''; this.win = win; this.session = session; contents.set(this.id, this); }
  getURL() { return this.url; }
  send() {}
  async executeJavaScript(code) { return vm.runInContext(code, this.win.ctx); }
  reload() {}
  forcefullyCrashRenderer() { this.emit('render-process-gone', {}, { reason: 'crashed' }); }
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
  isDestroyed() { return false; }
  getTitle() { return this.title || ''; }
  isVisible() { return false; }
  loadFile(file) {
    this.webContents.url = 'file://' + file;
    const html = fs.readFileSync(file, 'utf8');
    const t = /<title>([^<]*)<\/title>/.exec(html);
    this.title = t ? t[1] : '';
    this.ctx = renderer(this, file, html);
    return Promise.resolve();
  }
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
  const pre = win.opts.webPreferences && win.opts.webPreferences.preload;
  if (pre) {
    const sender = win.webContents;
    const ipcRenderer = {
      invoke: (ch, ...a) => { const h = handlers.get(ch); return h ? Promise.resolve(h({ sender }, ...a)) : Promise.reject(new Error('no handler')); },
      send: (ch, ...a) => { ipcMain.emit(ch, { sender }, ...a); },
      on() {},
    };
    const contextBridge = { exposeInMainWorld: (k, v) => { ctx[k] = v; } };
    const fn = new Function('require', 'module', 'exports', '__dirname', fs.readFileSync(pre, 'utf8'));
    fn((n) => (n === 'electron' ? { contextBridge, ipcRenderer } : require(n)), { exports: {} }, {}, path.dirname(pre));
  }
  for (const m of html.matchAll(/<script src="([^"]+)"/g)) {
    vm.runInContext(fs.readFileSync(path.resolve(path.dirname(file), m[1]), 'utf8'), ctx);
  }
  return ctx;
}

const fake = { app, ipcMain, shell, session: { defaultSession: session }, BrowserWindow, webContents: { fromId: (id) => contents.get(id) } };
const load = Module._load;
Module._load = function (request, ...more) {
  if (request === 'electron') return fake;
  return load.call(this, request, ...more);
};
try { Object.defineProperty(process.versions, 'electron', { value: '0.0.0-fake', enumerable: true }); } catch (_) {}
if (hook) require(hook);
const pkg = JSON.parse(fs.readFileSync(path.join(appDir, 'package.json'), 'utf8'));
require(path.join(appDir, pkg.main || 'index.js'));
setTimeout(() => {
  ready();
  const flood = rest.find((a) => a.startsWith('--flood='));
  const n = flood ? Number(flood.slice(8)) : 0;
  for (let i = 0; i < n; i++) ipcMain.emit('log:write', { sender: null }, { i });
}, 10);
setInterval(() => {}, 1000);
