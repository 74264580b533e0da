export * from './retail-prices.js';
export * from './resource-skus.js';
export * from './catalog-files.js';
export * from './refresh.js';
