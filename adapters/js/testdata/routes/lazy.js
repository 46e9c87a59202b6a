export function run() { return fetch("/api/items"); }
