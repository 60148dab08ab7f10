#!/usr/bin/env node
// Builds the web console (web/) into dist/web/: one hashed JS bundle and one hashed CSS file
// under assets/, and index.html pointing at them. Runs in `prepare`, offline (esbuild only).
// `node scripts/build-web.mjs --watch` rebuilds on change while developing.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'web');
const watch = process.argv.includes('--watch');

/** Writes index.html with the hashed asset names of the build just made. */
const writeIndex = {
  name: 'write-index',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0 || !result.metafile) return;
      const outputs = Object.keys(result.metafile.outputs).map(
        (file) => '/' + relative(outdir, join(root, file)).split('\\').join('/'),
      );
      const scripts = outputs.filter((f) => f.endsWith('.js')).map((f) => `<script type="module" src="${f}"></script>`);
      const styles = outputs.filter((f) => f.endsWith('.css')).map((f) => `<link rel="stylesheet" href="${f}" />`);
      const html = readFileSync(join(root, 'web', 'index.html'), 'utf8')
        .replace('<!--styles-->', styles.join('\n    '))
        .replace('<!--scripts-->', scripts.join('\n    '));
      writeFileSync(join(outdir, 'index.html'), html);
      console.log(`web console: ${outputs.map((f) => basename(f)).join(', ')} → ${relative(root, outdir)}/`);
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const options = {
  absWorkingDir: root,
  entryPoints: ['web/src/main.tsx'],
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  outdir,
  entryNames: 'assets/[name]-[hash]',
  assetNames: 'assets/[name]-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: !watch,
  sourcemap: true,
  metafile: true,
  legalComments: 'linked',
  define: { 'process.env.NODE_ENV': watch ? '"development"' : '"production"' },
  logLevel: 'warning',
  plugins: [writeIndex],
};

if (watch) {
  const context = await esbuild.context(options);
  await context.watch();
  console.log('web console: watching web/ …');
} else {
  await esbuild.build(options);
}
