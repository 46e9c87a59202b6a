exports.sum = (xs) => xs.reduce((a, b) => a + b, 0);
