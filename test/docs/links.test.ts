/**
 * Every relative link in README.md and docs/**\/*.md points at a file that exists, and every #anchor at
 * a heading of that file (GitHub's heading slugs). Links to the web are not followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Links that may leave the repository: none. Everything a reader needs is in it (the API reference is docs/api.md). */
const OUTSIDE_REPO = new Set<string>();

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks and inline code, where links and headings live. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = text!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

describe('documentation links', () => {
  it('finds the README and the docs', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  for (const file of files) {
    it(`every relative link in ${relative(ROOT, file)} resolves`, () => {
      const broken: string[] = [];
      for (const link of links(readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
        const [pathPart, anchor] = link.split('#', 2) as [string, string | undefined];
        const target = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
        const fromRoot = relative(ROOT, target);
        if (fromRoot.startsWith('..')) {
          if (!OUTSIDE_REPO.has(fromRoot)) broken.push(`${link} (leaves the repository)`);
          continue;
        }
        if (!existsSync(target)) {
          broken.push(`${link} (no such file)`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${link} (no heading #${anchor})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  it('the README speaks to a newcomer: no tracker numbers, no placeholders from elsewhere, no path outside the repository', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.match(/\bissue \d+|\bSVC\b|\.\.\/shared\//gi) ?? []).toEqual([]);
  });
});
