// Main process of an app assembled from npm packages for rea's tests.
const { app, BrowserWindow, ipcMain } = require('electron');
const path = require('path');
const _ = require('lodash');

ipcMain.handle('items:sort', (event, items) => _.sortBy(items, ['name']));

app.whenReady().then(() => {
  const win = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, 'preload.js'), contextIsolation: true } });
  win.loadFile('index.html');
});
