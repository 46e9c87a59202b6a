const { contextBridge, ipcRenderer } = require('electron');
contextBridge.exposeInMainWorld('items', { sort: (list) => ipcRenderer.invoke('items:sort', list) });
