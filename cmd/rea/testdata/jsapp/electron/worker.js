self.onmessage = (e) => postMessage(e.data * 2);
