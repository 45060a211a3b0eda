'use strict';
// The CommonJS entry: require('gatehouse-receipts').
module.exports = require('./src/index.cjs');
