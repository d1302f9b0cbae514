module.exports = (n) => n % 2 === 0; // v1.0.0
