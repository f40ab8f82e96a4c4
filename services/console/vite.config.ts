import { defineConfig } from 'vite';

/**
 * The Console builds to static files under dist/, which edge serves at
 * /console (services/edge/src/console/static.ts). Preact's automatic JSX
 * runtime needs no plugin. Nothing is inlined: the page's policy allows
 * scripts and styles from files of this origin only.
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: {
    // `npm run dev` serves the pages and sends the API to an edge started beside it (npm start).
    proxy: { '/api': process.env.CONSOLE_API_URL ?? 'http://127.0.0.1:8080' },
  },
});
