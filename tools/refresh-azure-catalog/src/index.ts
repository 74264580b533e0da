export * from './retail-prices.js';
export * from './catalog-files.js';
export * from './refresh.js';
