export { rawYaml, wrongValue } from './values.js';
export { documentMutation, mutatedYaml, valuePaths } from './document-mutations.js';
export type { DocumentMutation } from './document-mutations.js';
export { mutatedBytes, textMutation, THOUSANDS_OF_DOCUMENTS } from './text-mutations.js';
export type { RepeatRange, TextMutation } from './text-mutations.js';
export { describeInput, manifestBytes, manifestInput } from './manifest-input.js';
export type { ManifestInput, ManifestInputOptions } from './manifest-input.js';
