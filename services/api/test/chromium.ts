import { CHROMIUM_PATH } from '@entia/stack';

/**
 * How the browser tests launch Debian's Chromium: headless, without the sandbox (tests run as
 * root), and with nothing of its own on the network (updates, sync, first-run pages) so that only
 * the test's requests happen. Starting it on a busy two-core machine can take a while.
 */
export const CHROMIUM_LAUNCH = {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'],
  timeout: 60_000,
};
