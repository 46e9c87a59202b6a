'use strict';
// rea's Electron scenario hook, loaded with `electron -r hook.cjs <app>`
// in an application rea launched and owns. In the main process it records
// IPC traffic (channel names and argument shapes, never values), blocks
// and records the application's effects on the world (shell, navigation,
// permissions, downloads, popups, updater, OS integration), follows each
// renderer's lifecycle, and runs rea's scripted actions. It talks to rea
// over the Unix socket named by REA_ELECTRON_CONTROL: one JSON object per
// line each way.
//
// The main process also registers this file as a preload script of every
// session, so it runs again in each renderer (sandboxed: no socket, only
// the electron module). There it records ipcRenderer sends, invokes,
// listener registrations and the messages delivered to those listeners,
// and reports them to the main process over a reserved IPC channel; the
// main process files them under the renderer's process and window.

const electron = require('electron');
const HOOK_CHANNEL = 'rea:electron-hook';

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

if (typeof process !== 'undefined' && process.type === 'renderer') rendererHook();
else if (electron.ipcMain) mainHook();

// ---- renderer side

function rendererHook() {
  const { ipcRenderer } = electron;
  if (!ipcRenderer || ipcRenderer.__reaHooked) return;
  ipcRenderer.__reaHooked = true;
  const rawSend = ipcRenderer.send;
  const report = (m) => {
    try { rawSend.call(ipcRenderer, HOOK_CHANNEL, Object.assign({ pid: process.pid, at: Date.now() }, m)); } catch (_) {}
  };
  const ipc = (kind, channel, direction, args) =>
    report({ type: 'ipc', kind, channel: String(channel).slice(0, 1024), direction, argument_shapes: shapes(args) });
  for (const m of ['send', 'invoke', 'sendSync', 'postMessage', 'sendToHost']) {
    const orig = ipcRenderer[m];
    if (typeof orig !== 'function') continue;
    ipcRenderer[m] = function (channel, ...args) {
      ipc(m, channel, 'renderer-to-main', m === 'postMessage' ? args.slice(0, 1) : args);
      return orig.call(ipcRenderer, channel, ...args);
    };
  }
  // Listener registrations, and each message delivered to a listener. An
  // emitter's once() may go through on(): depth keeps that to one record.
  const wrappers = new WeakMap();
  let depth = 0;
  for (const m of ['on', 'once', 'addListener', 'prependListener']) {
    const orig = ipcRenderer[m];
    if (typeof orig !== 'function') continue;
    ipcRenderer[m] = function (channel, fn) {
      if (depth > 0 || typeof fn !== 'function') return orig.call(ipcRenderer, channel, fn);
      depth++;
      try {
        ipc(m === 'once' ? 'once' : 'on', channel, 'main-to-renderer', []);
        const w = function (event, ...args) { ipc('receive', channel, 'main-to-renderer', args); return fn.call(this, event, ...args); };
        wrappers.set(fn, w);
        return orig.call(ipcRenderer, channel, w);
      } finally { depth--; }
    };
  }
  for (const m of ['removeListener', 'off']) {
    const orig = ipcRenderer[m];
    if (typeof orig === 'function') ipcRenderer[m] = function (channel, fn) { return orig.call(ipcRenderer, channel, wrappers.get(fn) || fn); };
  }
  report({ type: 'attach' });
}

// ---- main side

function mainHook() {
const net = require('node:net');
const { app, ipcMain, shell, BrowserWindow, webContents } = electron;

const maxIPC = Number(process.env.REA_ELECTRON_ACTIVE_MAX_IPC_EVENTS) || 2000;
const maxRuntime = Number(process.env.REA_ELECTRON_ACTIVE_MAX_RUNTIME_EVENTS) || 5000;
const started = Date.now();
const state = { ipc: [], ipcObserved: 0, timeline: [], timelineObserved: 0, seq: 0, windows: new Map(), contents: new Map(), conflicts: [], ended: [] };
// ended lists the owned processes that went away before the snapshot, which
// app.getAppMetrics() no longer lists, with their exit as Electron reports it.
function ended(role, pid, details) {
  if (state.ended.length >= 64) return;
  const d = details || {};
  state.ended.push({ pid: Number.isInteger(pid) && pid > 0 ? pid : null, role: String(role || 'unknown').toLowerCase().slice(0, 32),
    reason: typeof d.reason === 'string' ? d.reason.slice(0, 64) : null, exit_code: Number.isInteger(d.exitCode) ? d.exitCode : null });
}

// where() names the process that saw an event and the window it concerns.
function where(role, pid, wc) {
  let win = null;
  try { win = wc && BrowserWindow && BrowserWindow.fromWebContents ? BrowserWindow.fromWebContents(wc) : null; } catch (_) {}
  return { role, pid: Number.isInteger(pid) ? pid : null, window_id: win ? win.id : null, web_contents_id: wc && Number.isInteger(wc.id) ? wc.id : null };
}
const inMain = (wc) => where('main', process.pid, wc);
function record(family, kind, phase, extra, at) {
  const ev = Object.assign({ sequence: state.seq++, family, kind, phase, elapsed_ms: Math.max(0, (at || Date.now()) - started) }, extra || {});
  if (family === 'ipc') {
    state.ipcObserved++;
    if (state.ipc.length < maxIPC) state.ipc.push(ev);
  } else {
    state.timelineObserved++;
    if (state.timeline.length < maxRuntime) state.timeline.push(ev);
  }
}
const ipc = (kind, channel, direction, args, seen, at) =>
  record('ipc', kind, 'observed', Object.assign({ channel: String(channel).slice(0, 1024), direction, argument_shapes: shapes(args) }, seen), at);
const effect = (family, kind, phase, seen) => record(family, kind, phase, seen || inMain(null));

// The renderer halves of the hook report here, on the original listener
// API, so their own channel is never recorded as the application's IPC.
ipcMain.on(HOOK_CHANNEL, (event, m) => {
  const wc = event && event.sender;
  if (!m || typeof m !== 'object') return;
  const pid = Number.isInteger(m.pid) ? m.pid : (wc && wc.getOSProcessId ? wc.getOSProcessId() : null);
  const seen = where('renderer', pid, wc);
  const at = Number.isFinite(m.at) ? m.at : Date.now();
  if (m.type === 'attach') {
    if (wc) { const s = contentsState(wc); s.attached = true; if (Number.isInteger(pid) && pid > 0) s.pid = pid; }
    record('renderer', 'hook-attached', 'observed', seen, at);
  } else if (m.type === 'ipc' && typeof m.kind === 'string' && Array.isArray(m.argument_shapes)) {
    record('ipc', String(m.kind).slice(0, 100), 'observed', Object.assign({ channel: String(m.channel).slice(0, 1024),
      direction: m.direction === 'main-to-renderer' ? 'main-to-renderer' : 'renderer-to-main',
      argument_shapes: m.argument_shapes.slice(0, 32).map((x) => String(x).slice(0, 256)) }, seen), at);
  }
});

// IPC: renderer-to-main through ipcMain handlers and listeners.
for (const m of ['handle', 'handleOnce']) {
  const orig = ipcMain[m].bind(ipcMain);
  ipcMain[m] = (channel, fn) => orig(channel, (event, ...args) => { ipc('handle', channel, 'renderer-to-main', args, inMain(event && event.sender)); return fn(event, ...args); });
}
for (const m of ['on', 'once', 'addListener']) {
  const orig = ipcMain[m].bind(ipcMain);
  ipcMain[m] = (channel, fn) => orig(channel, (event, ...args) => { ipc('on', channel, 'renderer-to-main', args, inMain(event && event.sender)); return fn(event, ...args); });
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

// Every session runs this file as a preload, so each renderer gets its half.
function addPreload(sess) {
  if (!sess || sess.__reaPreload) return;
  sess.__reaPreload = true;
  try {
    if (typeof sess.registerPreloadScript === 'function') sess.registerPreloadScript({ type: 'frame', id: 'rea-electron-hook', filePath: __filename });
    else if (typeof sess.setPreloads === 'function') sess.setPreloads((sess.getPreloads ? sess.getPreloads() : []).concat([__filename]));
  } catch (_) {} // the renderers then never attach, which the snapshot reports
}
if (app && app.on) app.on('session-created', (sess) => addPreload(sess));

// contentsState tracks one webContents' renderer: loaded since its last
// navigation or crash, and whether the renderer half attached since then.
function contentsState(wc) {
  let s = state.contents.get(wc.id);
  if (!s) { s = { wc, loaded: false, attached: false, crashed: false }; state.contents.set(wc.id, s); }
  return s;
}
function watchContents(wc) {
  if (!wc || wc.__reaWatched) return;
  wc.__reaWatched = true;
  contentsState(wc);
  addPreload(wc.session);
  const send = wc.send && wc.send.bind(wc);
  if (send) wc.send = (channel, ...args) => { ipc('send', channel, 'main-to-renderer', args, inMain(wc)); return send(channel, ...args); };
  if (wc.on) {
    wc.on('will-navigate', () => { effect('navigation', 'will-navigate', 'observed', inMain(wc)); });
    wc.on('did-start-loading', () => { const s = contentsState(wc); s.loaded = false; s.attached = false; s.crashed = false; });
    wc.on('did-finish-load', () => {
      const s = contentsState(wc);
      s.loaded = true;
      try { const pid = wc.getOSProcessId ? wc.getOSProcessId() : 0; if (Number.isInteger(pid) && pid > 0) s.pid = pid; } catch (_) {}
      record('renderer', 'did-finish-load', 'observed', inMain(wc));
    });
    // The renderer's pid is the last one seen alive: once gone, Electron
    // reports none.
    wc.on('render-process-gone', (_e, details) => {
      const s = contentsState(wc);
      s.crashed = true; s.loaded = false; s.attached = false;
      ended('renderer', s.pid, details);
      s.pid = null;
      record('renderer', 'render-process-gone', 'observed', inMain(wc));
    });
    wc.on('destroyed', () => { const s = state.contents.get(wc.id); if (s) s.destroyed = true; });
  }
  if (wc.setWindowOpenHandler) {
    wc.setWindowOpenHandler(() => { effect('popup', 'window-open', 'blocked', inMain(wc)); return { action: 'deny' }; });
  }
  const sess = wc.session;
  if (sess && !sess.__reaWatched) {
    sess.__reaWatched = true;
    if (sess.setPermissionRequestHandler) {
      sess.setPermissionRequestHandler((pwc, permission, cb) => { effect('permission', String(permission).slice(0, 100), 'blocked', inMain(pwc)); cb(false); });
    }
    if (sess.on) sess.on('will-download', (e, item) => { effect('download', 'will-download', 'blocked'); if (item && item.cancel) item.cancel(); });
  }
}
if (app && app.on) app.on('web-contents-created', (_e, wc) => watchContents(wc));
// Utility, GPU and other child processes: Electron names their type, not their pid.
if (app && app.on) app.on('child-process-gone', (_e, details) => ended(details && details.type, null, details));
if (app && app.on) app.on('browser-window-created', (_e, w) => {
  state.windows.set(w.id, w);
  if (w.webContents) watchContents(w.webContents);
});
if (app && app.whenReady) app.whenReady().then(() => { try { addPreload(electron.session && electron.session.defaultSession); } catch (_) {} });

function windows() {
  const out = [];
  const all = BrowserWindow && BrowserWindow.getAllWindows ? BrowserWindow.getAllWindows() : [];
  for (const w of all) state.windows.set(w.id, w);
  for (const [id, w] of state.windows) {
    const destroyed = w.isDestroyed ? w.isDestroyed() : false;
    const wc = destroyed ? null : w.webContents;
    out.push({
      window_id: id,
      web_contents_id: wc ? wc.id : null,
      url: wc ? String(wc.getURL()).slice(0, 65536) : '',
      title: destroyed ? '' : String(w.getTitle ? w.getTitle() : '').slice(0, 1024),
      visible: destroyed ? false : !!(w.isVisible && w.isVisible()),
      destroyed,
      crashed: !!(wc && wc.isCrashed && wc.isCrashed()),
    });
  }
  return out;
}
// renderers: each live webContents with a loaded page, and whether the
// renderer half of the hook attached to it.
function renderers() {
  const out = [];
  for (const [id, s] of state.contents) {
    if (s.destroyed || (s.wc.isDestroyed && s.wc.isDestroyed())) continue;
    let pid = null;
    try { pid = s.wc.getOSProcessId ? s.wc.getOSProcessId() : null; } catch (_) {}
    out.push({ web_contents_id: id, window_id: where('renderer', pid, s.wc).window_id, pid, loaded: s.loaded, attached: s.attached, crashed: s.crashed });
  }
  return out.slice(0, 64);
}
function processes() {
  try {
    return (app.getAppMetrics ? app.getAppMetrics() : []).slice(0, 64).map((m) => ({ pid: m.pid, role: m.type === 'Browser' ? 'main' : m.type === 'Tab' ? 'renderer' : String(m.type || 'unknown').toLowerCase() }));
  } catch (_) {
    return [{ pid: process.pid, role: 'main' }];
  }
}
function snapshot() {
  return { windows: windows(), processes: processes(), ended_processes: state.ended, renderers: renderers(), ipc: state.ipc, ipc_observed: state.ipcObserved, timeline: state.timeline,
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
// loaded resolves when wc finishes its next load, or after ms.
function loaded(wc, ms) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    wc.once('did-finish-load', () => { clearTimeout(t); resolve(); });
  });
}
async function act(a) {
  switch (a.kind) {
    case 'wait':
      await new Promise((r) => setTimeout(r, a.duration_ms || 0));
      return;
    case 'click': {
      const wc = target(a.window_index);
      if (wc.isCrashed && wc.isCrashed()) throw new Error('renderer_crashed');
      const ok = await wc.executeJavaScript(
        '(() => { const el = document.querySelector(' + JSON.stringify(a.selector) + '); if (!el) return false; el.click(); return true; })()');
      if (!ok) throw new Error('selector_not_found');
      await new Promise((r) => setTimeout(r, 100));
      return;
    }
    case 'renderer-reload': {
      const wc = target(a.window_index);
      const done = loaded(wc, 3000);
      record('renderer', 'reload', 'attempted', inMain(wc));
      wc.reload();
      await done;
      return;
    }
    case 'renderer-crash': {
      const wc = target(a.window_index);
      const gone = new Promise((r) => { const t = setTimeout(r, 3000); wc.once('render-process-gone', () => { clearTimeout(t); r(); }); });
      record('renderer', 'crash', 'attempted', inMain(wc));
      wc.forcefullyCrashRenderer();
      await gone;
      return;
    }
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
// An application that exits mid-scenario (process.exit, app.exit, app.quit)
// runs this handler: it writes the snapshot synchronously, since the
// process ends before an asynchronous write would go out, so rea keeps
// what was recorded up to the exit. A crash or kill runs no handler.
process.on('exit', () => {
  try {
    const fd = sock._handle && sock._handle.fd;
    if (!Number.isInteger(fd) || fd < 0) return;
    const b = Buffer.from('\n' + JSON.stringify(Object.assign({ type: 'snapshot' }, snapshot())) + '\n');
    for (let off = 0, tries = 0; off < b.length && tries < 10000;) {
      try { off += require('node:fs').writeSync(fd, b, off); } catch (e) { if (e.code !== 'EAGAIN') return; tries++; }
    }
  } catch (_) {}
});
const hello = () => out({ type: 'ready', electron_version: String(process.versions.electron || ''), pid: process.pid });
if (app && app.whenReady) app.whenReady().then(() => setTimeout(hello, 300));
else hello();
}
