module.exports = (n) => n % 2 === 0; // v2.0.0
