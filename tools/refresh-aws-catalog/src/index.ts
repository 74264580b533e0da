export * from './instance-type-record.js';
export * from './ec2-api.js';
export * from './pricing-api.js';
export * from './catalog-files.js';
export * from './refresh.js';
