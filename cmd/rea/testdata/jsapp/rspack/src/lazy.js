export function run() { return fetch("https://api.example.com/items"); }
