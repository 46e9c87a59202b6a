const a = require("./a.js");
module.exports = function c() { return a.y(1, 2) + require("./b.js").f(3); };
