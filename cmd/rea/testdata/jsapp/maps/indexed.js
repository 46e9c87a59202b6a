var a = 1;
var b = 2;
//# sourceMappingURL=indexed.js.map
