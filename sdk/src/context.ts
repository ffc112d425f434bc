/** What the SDK can tell about where it runs: the batch `context` and the platform headers. */
import type { TallyOptions } from './types';

export interface Environment {
  /** The batch `context` of POST /v1/events. */
  context: Record<string, string>;
  /** X-Tally-Platform-Version: the browser's name and version, or Node's version. */
  platformVersion: string | undefined;
}

export function detectEnvironment(options: TallyOptions): Environment {
  const nav = globalThis.navigator as Navigator | undefined;
  const node = globalThis.process?.versions?.node;
  const browser = typeof document !== 'undefined' && !!nav;
  const ua = browser ? nav.userAgent : '';
  let zone: Intl.ResolvedDateTimeFormatOptions | undefined;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions();
  } catch {
    zone = undefined;
  }
  const context: Record<string, string | undefined> = {
    platform: options.platform ?? (browser ? 'web' : node ? 'node' : undefined),
    app_version: options.appVersion,
    os_version: browser ? osOf(ua) : node ? globalThis.process.platform : undefined,
    environment: options.environment,
    locale: (browser && nav.language) || zone?.locale,
    timezone: zone?.timeZone,
  };
  for (const key of Object.keys(context)) if (!context[key]) delete context[key];
  return {
    context: context as Record<string, string>,
    platformVersion: browser ? /(Edg|Firefox|Chrome|Version)\/[\d.]+/.exec(ua)?.[0] : node,
  };
}

/** "Windows NT 10.0", "Mac OS X 10.15.7", "Android 14", "iPhone OS 17.1", "Linux"… from a user agent. */
function osOf(ua: string): string | undefined {
  return /(Windows NT|Mac OS X|Android|iPhone OS|CPU OS|CrOS \w+) ?[\d._]*|Linux/.exec(ua)?.[0].replace(/_/g, '.').trim();
}
