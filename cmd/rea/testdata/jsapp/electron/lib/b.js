const a = require('./a.js');
exports.fromB = () => 'b';
