const { contextBridge, ipcRenderer } = require('electron');

contextBridge.exposeInMainWorld('api', {
  open: (p) => ipcRenderer.invoke('dialog:open', { path: p }),
  site: () => ipcRenderer.invoke('shell:site'),
  log: (message) => ipcRenderer.send('log:write', message),
  onStatus: (fn) => ipcRenderer.on('app:status', (_event, status) => fn(status)),
});
