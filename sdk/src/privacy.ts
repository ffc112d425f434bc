/** The browser's privacy signals: Do Not Track and Global Privacy Control. */
export function browserSaysDoNotTrack(): boolean {
  const nav = globalThis.navigator as (Navigator & { globalPrivacyControl?: boolean }) | undefined;
  return nav?.globalPrivacyControl === true || nav?.doNotTrack === '1';
}
