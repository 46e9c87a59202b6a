module.exports = { name: 'common' };
