process.parentPort.on('message', () => {});
