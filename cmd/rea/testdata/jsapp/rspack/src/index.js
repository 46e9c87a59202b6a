import { add } from './math.js';
import util from './util.cjs';
import('./lazy.js').then(m => m.run());
export function main(a, b) { return util.fmt(add(a, b)); }
main(1, 2);
