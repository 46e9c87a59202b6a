exports.x = 1;
module.exports.y = function (o, t) { return o + t; };
