export type * from './types.js';
export * from './errors.js';
export * from './clock.js';
export * from './units.js';
export * from './instancetype.js';
export * from './offering.js';
export * from './fake-instance-types.js';
export * from './kwok-instance-types.js';
export * from './sim-provider.js';
