exports.label = (n) => 'total=' + n;
