/** An origin as browsers send it, compared as scheme://host[:port] in lower case; null when it is not an http(s) origin. Pure. */
export function normaliseOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}
