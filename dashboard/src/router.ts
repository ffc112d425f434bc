/**
 * Hash routes ("#/projects/p1/keys"), so the static files need no server-side fallback (S3 and
 * CloudFront serve index.html only at "/").
 */
import { useEffect, useState } from 'preact/hooks';

export function currentPath(): string {
  const hash = location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export function navigate(path: string): void {
  location.hash = path;
}

export function useRoute(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    addEventListener('hashchange', onChange);
    // A hash set before the listener was added (the first render navigated to /projects) is read now.
    onChange();
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

/** Matches "/projects/:projectId/keys" against a path; the parameters are URI-decoded. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('?')[0]!.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) return null;
  }
  return params;
}

/** Builds a path from segments, encoding each one. */
export function pathOf(...segments: string[]): string {
  return `/${segments.map(encodeURIComponent).join('/')}`;
}
