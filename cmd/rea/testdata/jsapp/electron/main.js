const { app, BrowserWindow, ipcMain, utilityProcess } = require('electron');
const path = require('path');
const fs = require('fs');
const addon = require('./build/Release/addon.node');
function create() {
  const win = new BrowserWindow({ width: 800, webPreferences: { preload: path.join(__dirname, 'preload.js'), contextIsolation: true } });
  win.loadFile('index.html');
}
ipcMain.handle('dialog:open', async () => { return fs.readFileSync(path.join(__dirname, 'settings.json'), 'utf8'); });
ipcMain.on('log', (e, m) => console.log(m));
ipcMain.handle(channelName(), () => 1);
utilityProcess.fork(path.join(__dirname, 'worker-utility.js'));
addon.compute(42);
app.whenReady().then(create);
