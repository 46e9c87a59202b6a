// Electron-shaped fixture: a window with a contextBridge preload, two
// ipcMain.handle channels and one ipcMain.on channel.
const { app, BrowserWindow, ipcMain, shell } = require('electron');
const path = require('node:path');

ipcMain.handle('dialog:open', async (_event, options) => ({ ok: true, path: options && options.path }));
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
