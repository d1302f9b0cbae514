// placeholder, replaced below
console.log('demo');
