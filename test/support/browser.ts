import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from './chromium-launch.mjs';

/** Debian's chromium, headless (test/support/chromium-launch.mjs). `env` (e.g. a TestWorld's, carrying
 * its tag) lets the test's clean-up prove every browser process is gone. */
export function launchChromium(env?: NodeJS.ProcessEnv): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions(env));
}

/** Console errors and uncaught exceptions of a page, as text. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/**
 * How many distinct colours a PNG has (sampled on a grid), decoded by the browser itself: a blank
 * or single-colour screenshot has one or two.
 */
export async function distinctColours(browser: Browser, png: Buffer): Promise<number> {
  const page = await browser.newPage();
  try {
    // A string, so the test program needs no DOM typings.
    const count = await page.evaluate(`(async () => {
      const img = new Image();
      img.src = 'data:image/png;base64,${png.toString('base64')}';
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      return seen.size;
    })()`);
    return count as number;
  } finally {
    await page.close();
  }
}
