/**
 * Bundles the preload (and the bits of the contract it checks names against) into one CommonJS file,
 * dist/electron/preload/preload.cjs: a sandboxed preload can neither load ES modules nor require
 * files of the app. `electron` stays external — the sandbox provides it.
 */
import { defineConfig } from 'vite';

export const PRELOAD_ENTRY = new URL('./preload.ts', import.meta.url).pathname;

export default defineConfig({
  logLevel: 'warn',
  build: {
    outDir: new URL('../../dist/electron/preload/', import.meta.url).pathname,
    emptyOutDir: false,
    sourcemap: false,
    minify: false,
    target: 'chrome140',
    lib: { entry: PRELOAD_ENTRY, formats: ['cjs'], fileName: () => 'preload.cjs' },
    rollupOptions: { external: ['electron'] },
  },
});
