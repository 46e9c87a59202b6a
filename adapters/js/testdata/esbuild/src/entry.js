import c from "./c.js";
import * as a from "./a.js";
console.log(c(), a.x);
