export function f(o) { return o; }
export let b;
b = 2;
