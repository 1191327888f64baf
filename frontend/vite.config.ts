/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// One bundle for the Wails window and the browser (`logbook serve`): relative asset
// paths, everything in dist/ which the Go binary embeds. public/.gitkeep is copied
// into dist/ so the committed keep-file survives emptyOutDir.
export default defineConfig({
  plugins: [svelte()],
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npm run dev` proxies API calls to a running `logbook serve --addr 127.0.0.1:8765`.
    proxy: { '/api': 'http://127.0.0.1:8765' },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
