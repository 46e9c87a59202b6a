const { sum } = require('./math.js');
const { label } = require('./format.js');

exports.total = (xs) => label(sum(xs));
