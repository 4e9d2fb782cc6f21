// Builds the renderer (renderer/) into dist/renderer, served by `shotfarm serve` and loaded by Electron.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: new URL('./renderer/', import.meta.url).pathname,
  base: './',
  plugins: [react()],
  build: {
    outDir: new URL('./dist/renderer/', import.meta.url).pathname,
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
  },
  server: { port: 5173 },
});
