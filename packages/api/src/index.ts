export type * from './types/core.js';
export * from './types/common.js';
export * from './types/nodepool.js';
export * from './types/nodeclaim.js';
export * from './types/nodeoverlay.js';
export * from './labels.js';
