import { describe, expect, it } from 'vitest';
import { framedHtml } from './app-html.js';

describe("an app's HTML as its frame gets it", () => {
  it.each([
    ['<!doctype html><html lang="en"><head><title>t</title></head><body></body></html>', '<!doctype html><html lang="en"><head><script>'],
    ['<!DOCTYPE html><html><body>no head</body></html>', '<!DOCTYPE html><html><script>'],
    ['<!doctype html><p>bare</p>', '<!doctype html><script>'],
    ['<p>fragment</p>', '<script>'],
  ])('carries the error reporter first in its head, never before the doctype (%s)', (html, start) => {
    const out = framedHtml(html);
    expect(out.startsWith(start)).toBe(true);
    expect(out).toContain('notifications/message');
    expect(out.replace(/<script>.*?<\/script>/s, '')).toBe(html);
  });
});
