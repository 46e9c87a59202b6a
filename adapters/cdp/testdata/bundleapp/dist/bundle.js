var __getOwnPropNames = Object.getOwnPropertyNames;
var __commonJS = (cb, mod) => function __require() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};

// src/math.js
var require_math = __commonJS({
  "src/math.js"(exports2) {
    exports2.sum = (xs) => xs.reduce((a, b) => a + b, 0);
  }
});

// src/format.js
var require_format = __commonJS({
  "src/format.js"(exports2) {
    exports2.label = (n) => "total=" + n;
  }
});

// src/index.js
var { sum } = require_math();
var { label } = require_format();
exports.total = (xs) => label(sum(xs));
//# sourceMappingURL=bundle.js.map
