const { contextBridge, ipcRenderer } = require('electron');
contextBridge.exposeInMainWorld('api', { open: () => ipcRenderer.invoke('dialog:open'), log: (m) => ipcRenderer.send('log', m) });
