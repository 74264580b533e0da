// The few pieces of the WebAssembly JS API the loader needs. Our TypeScript lib (ES2023, no
// DOM) does not declare the `WebAssembly` global, and pulling in the DOM lib for it would leak
// browser types into every package, so we type just what we use.

/** A compiled module (opaque). */
export interface WasmModule {
  readonly __wasmModule?: never;
}

/** An instance: its exports by name. */
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

/** Linear memory; its `buffer` is replaced whenever the memory grows. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<WasmInstance>;
}

/** The runtime's `WebAssembly` namespace (Node 20 has it, SIMD included). */
export const webAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
