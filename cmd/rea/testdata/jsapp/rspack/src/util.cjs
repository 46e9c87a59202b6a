exports.fmt = function (x) { return "v=" + x; };
