export * from './ec2nodeclass.js';
export * from './labels.js';
export * from './catalog-data.js';
export * from './allocatable.js';
export * from './pricing.js';
export * from './instance-types.js';
export * from './defaults.js';
export * from './validation.js';
