// Electron-shaped fixture: a window with a contextBridge preload, two
// ipcMain.handle channels, one ipcMain.on channel, and one main-to-renderer
// channel the preload listens on.
const { app, BrowserWindow, ipcMain, shell } = require('electron');
const path = require('node:path');

ipcMain.handle('dialog:open', async (event, options) => {
  event.sender.send('app:status', { opened: true });
  return { ok: true, path: options && options.path };
});
ipcMain.handle('shell:site', async () => shell.openExternal('https://example.com/'));
ipcMain.on('log:write', () => {});

app.whenReady().then(() => {
  const win = new BrowserWindow({
    show: false,
    webPreferences: { preload: path.join(__dirname, 'preload.js'), contextIsolation: true },
  });
  win.loadFile(path.join(__dirname, 'index.html'));
});
app.on('window-all-closed', () => app.quit());
