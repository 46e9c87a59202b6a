'use strict';
// rea's Electron scenario hook, loaded with `electron -r hook.cjs <app>`
// in an application rea launched and owns. It records IPC traffic (channel
// names and argument shapes, never values) and blocks and records the
// application's effects on the world (shell, navigation, permissions,
// downloads, popups, updater, OS integration), and runs rea's scripted
// actions. It talks to rea over the Unix socket named by
// REA_ELECTRON_CONTROL: one JSON object per line each way.

const net = require('node:net');
const electron = require('electron');
const { app, ipcMain, shell, BrowserWindow, webContents } = electron;

const maxIPC = Number(process.env.REA_ELECTRON_ACTIVE_MAX_IPC_EVENTS) || 2000;
const maxRuntime = Number(process.env.REA_ELECTRON_ACTIVE_MAX_RUNTIME_EVENTS) || 5000;
const started = Date.now();
const state = { ipc: [], ipcObserved: 0, timeline: [], timelineObserved: 0, seq: 0, windows: new Map(), conflicts: [] };

function shape(v, depth) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return depth > 1 ? 'array' : 'array[' + v.length + ']';
  const t = typeof v;
  if (t !== 'object') return t;
  if (depth > 1) return 'object';
  const keys = Object.keys(v).slice(0, 16).sort();
  return 'object{' + keys.join(',') + '}';
}
function shapes(args) {
  return args.slice(0, 32).map((a) => shape(a, 1).slice(0, 256));
}
function record(list, family, kind, phase, extra) {
  const ev = Object.assign({ sequence: state.seq++, family, kind, phase, elapsed_ms: Date.now() - started }, extra || {});
  if (family === 'ipc') {
    state.ipcObserved++;
    if (state.ipc.length < maxIPC) state.ipc.push(ev);
  } else {
    state.timelineObserved++;
    if (state.timeline.length < maxRuntime) state.timeline.push(ev);
  }
}
const ipc = (kind, channel, direction, args) =>
  record(null, 'ipc', kind, 'observed', { channel: String(channel).slice(0, 1024), direction, argument_shapes: shapes(args) });
const effect = (family, kind, phase) => record(null, family, kind, phase);

// IPC: renderer-to-main through ipcMain handlers and listeners.
for (const m of ['handle', 'handleOnce']) {
  const orig = ipcMain[m].bind(ipcMain);
  ipcMain[m] = (channel, fn) => orig(channel, (event, ...args) => { ipc('invoke', channel, 'renderer-to-main', args); return fn(event, ...args); });
}
for (const m of ['on', 'once', 'addListener']) {
  const orig = ipcMain[m].bind(ipcMain);
  ipcMain[m] = (channel, fn) => orig(channel, (event, ...args) => { ipc('send', channel, 'renderer-to-main', args); return fn(event, ...args); });
}

// Effects are blocked: the scenario observes that the app tried.
const blockAsync = (family, kind) => () => { effect(family, kind, 'blocked'); return Promise.resolve(''); };
const blockSync = (family, kind, value) => () => { effect(family, kind, 'blocked'); return value; };
if (shell) {
  shell.openExternal = blockAsync('shell', 'openExternal');
  shell.openPath = blockAsync('shell', 'openPath');
  shell.showItemInFolder = blockSync('shell', 'showItemInFolder');
  shell.trashItem = blockAsync('shell', 'trashItem');
  shell.beep = blockSync('os', 'beep');
}
if (app) {
  app.setLoginItemSettings = blockSync('os', 'setLoginItemSettings');
  app.setAsDefaultProtocolClient = blockSync('os', 'setAsDefaultProtocolClient', false);
  app.relaunch = blockSync('os', 'relaunch');
}
try {
  const { autoUpdater } = electron;
  if (autoUpdater) {
    autoUpdater.checkForUpdates = blockSync('updater', 'checkForUpdates');
    autoUpdater.quitAndInstall = blockSync('updater', 'quitAndInstall');
  }
} catch (_) {}

function watchContents(wc) {
  if (!wc || wc.__reaWatched) return;
  wc.__reaWatched = true;
  const send = wc.send && wc.send.bind(wc);
  if (send) wc.send = (channel, ...args) => { ipc('send', channel, 'main-to-renderer', args); return send(channel, ...args); };
  if (wc.on) {
    wc.on('will-navigate', (e) => { effect('navigation', 'will-navigate', 'observed'); });
    wc.on('render-process-gone', () => effect('os', 'render-process-gone', 'observed'));
  }
  if (wc.setWindowOpenHandler) {
    wc.setWindowOpenHandler(() => { effect('popup', 'window-open', 'blocked'); return { action: 'deny' }; });
  }
  const sess = wc.session;
  if (sess && !sess.__reaWatched) {
    sess.__reaWatched = true;
    if (sess.setPermissionRequestHandler) {
      sess.setPermissionRequestHandler((_wc, permission, cb) => { effect('permission', String(permission).slice(0, 100), 'blocked'); cb(false); });
    }
    if (sess.on) sess.on('will-download', (e, item) => { effect('download', 'will-download', 'blocked'); if (item && item.cancel) item.cancel(); });
  }
}
if (app && app.on) app.on('web-contents-created', (_e, wc) => watchContents(wc));
if (app && app.on) app.on('browser-window-created', (_e, w) => {
  state.windows.set(w.id, w);
  if (w.webContents) watchContents(w.webContents);
});

function windows() {
  const out = [];
  const all = BrowserWindow && BrowserWindow.getAllWindows ? BrowserWindow.getAllWindows() : [];
  for (const w of all) state.windows.set(w.id, w);
  for (const [id, w] of state.windows) {
    const destroyed = w.isDestroyed ? w.isDestroyed() : false;
    out.push({
      window_id: id,
      web_contents_id: destroyed || !w.webContents ? null : w.webContents.id,
      url: destroyed || !w.webContents ? '' : String(w.webContents.getURL()).slice(0, 65536),
      title: destroyed ? '' : String(w.getTitle ? w.getTitle() : '').slice(0, 1024),
      visible: destroyed ? false : !!(w.isVisible && w.isVisible()),
      destroyed,
    });
  }
  return out;
}
function processes() {
  try {
    return (app.getAppMetrics ? app.getAppMetrics() : []).slice(0, 64).map((m) => ({ pid: m.pid, role: m.type === 'Browser' ? 'main' : m.type === 'Tab' ? 'renderer' : String(m.type || 'unknown').toLowerCase() }));
  } catch (_) {
    return [{ pid: process.pid, role: 'main' }];
  }
}
function snapshot() {
  return { windows: windows(), processes: processes(), ipc: state.ipc, ipc_observed: state.ipcObserved, timeline: state.timeline,
    timeline_observed: state.timelineObserved, conflicts: state.conflicts };
}
globalThis.__reaElectronActiveSnapshot = snapshot;

function target(index) {
  const all = windows().filter((w) => !w.destroyed);
  const w = all[index || 0];
  if (!w) throw new Error('window_not_found');
  const wc = webContents.fromId(w.web_contents_id);
  if (!wc) throw new Error('window_not_found');
  return wc;
}
async function act(a) {
  switch (a.kind) {
    case 'wait':
      await new Promise((r) => setTimeout(r, a.duration_ms || 0));
      return;
    case 'click': {
      const ok = await target(a.window_index).executeJavaScript(
        '(() => { const el = document.querySelector(' + JSON.stringify(a.selector) + '); if (!el) return false; el.click(); return true; })()');
      if (!ok) throw new Error('selector_not_found');
      await new Promise((r) => setTimeout(r, 100));
      return;
    }
    case 'renderer-reload':
      target(a.window_index).reload();
      return;
    case 'renderer-crash':
      target(a.window_index).forcefullyCrashRenderer();
      return;
    case 'deep-link':
      if (a.delivery === 'second-instance') app.emit('second-instance', { preventDefault() {} }, [process.execPath, a.url], process.cwd());
      else app.emit('open-url', { preventDefault() {} }, a.url);
      return;
  }
  throw new Error('unknown action ' + a.kind);
}

const sock = net.createConnection(process.env.REA_ELECTRON_CONTROL || '');
sock.on('error', () => {});
const out = (m) => sock.write(JSON.stringify(m) + '\n');
let buf = '';
sock.on('data', async (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    let m;
    try { m = JSON.parse(line); } catch (_) { continue; }
    if (m.cmd === 'action') {
      const t0 = Date.now();
      try { await act(m.action); out({ type: 'action', step_id: m.action.step_id, status: 'completed', elapsed_ms: Date.now() - t0 }); }
      catch (e) { out({ type: 'action', step_id: m.action.step_id, status: 'failed', error: String(e && e.message || e).slice(0, 200), elapsed_ms: Date.now() - t0 }); }
    } else if (m.cmd === 'snapshot') {
      out(Object.assign({ type: 'snapshot' }, snapshot()));
    }
  }
});
const hello = () => out({ type: 'ready', electron_version: String(process.versions.electron || ''), pid: process.pid });
if (app && app.whenReady) app.whenReady().then(() => setTimeout(hello, 300));
else hello();
