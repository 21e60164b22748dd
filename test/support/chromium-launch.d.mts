import type { LaunchOptions } from 'playwright-core';

export declare const CHROMIUM_ARGS: readonly string[];
export declare function chromiumLaunchOptions(env?: NodeJS.ProcessEnv): LaunchOptions;
