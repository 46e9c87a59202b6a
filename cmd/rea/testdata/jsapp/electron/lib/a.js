const b = require('./b.js');
exports.fromA = () => b.fromB();
