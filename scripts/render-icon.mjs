#!/usr/bin/env node
// Renders media/icon.svg to media/icon.png (128×128, transparent corners): the marketplace icon
// (package.json "icon"). Uses the Chromium the real-VS-Code tier already needs, driven by playwright-core
// (a dev dependency), so no image library is added. Re-run after editing the SVG and commit both files.
//
//   node scripts/render-icon.mjs [--chromium /path/to/chromium]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--chromium');
const executablePath = at > 0 ? process.argv[at + 1] : process.env.CHROMIUM || '/usr/bin/chromium';
const svg = fs.readFileSync(path.join(ROOT, 'media/icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  fs.writeFileSync(path.join(ROOT, 'media/icon.png'), png);
  console.log(`render-icon: wrote media/icon.png (${png.length} bytes)`);
} finally {
  await browser.close();
}
