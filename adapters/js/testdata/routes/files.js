export function readAll(list) { for (const f of list) console.log("read", f.path); }
