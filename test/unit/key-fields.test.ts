/** The dashboard's checks of a new key and a project name: plain words, and exactly the API's limits. */
import { describe, expect, it } from 'vitest';
import { keyDraftProblems, KEY_LIMITS, type KeyDraft } from '../../lambdas/domain/key-fields';
import { projectNameProblem, PROJECT_NAME_LENGTH } from '../../lambdas/domain/project-fields';
import { CreateKey } from '../../lambdas/handlers/keys';
import { CreateProject } from '../../lambdas/handlers/projects';

const none: KeyDraft = { rateLimit: '', origins: [], bundleIds: [] };

/** The body the Keys page sends for a draft it lets through. */
const body = (d: KeyDraft) => ({
  plan: 'enterprise',
  ...(d.rateLimit.trim() ? { rate_limit_per_minute: Number(d.rateLimit) } : {}),
  allowed_origins: d.origins,
  allowed_bundle_ids: d.bundleIds,
});

describe('keyDraftProblems', () => {
  it('says what is wrong in plain words, naming the value', () => {
    expect(keyDraftProblems({ rateLimit: 'lots', origins: ['http//nope'], bundleIds: [] })).toEqual({
      rate_limit_per_minute: 'Write the limit as a whole number of requests per minute, such as 500, or leave it empty.',
      allowed_origins:
        '“http//nope” is not an origin: write the address a page is served from, like https://app.example.com, or https://*.example.com for every subdomain.',
    });
    expect(keyDraftProblems({ ...none, rateLimit: '0' }).rate_limit_per_minute).toBe('Choose a limit from 1 to 600,000 requests per minute.');
  });

  it('agrees with the API at every limit', () => {
    const L = KEY_LIMITS;
    const drafts: KeyDraft[] = [
      none,
      { ...none, rateLimit: '1' },
      { ...none, rateLimit: String(L.maxRateLimitPerMinute) },
      { ...none, rateLimit: String(L.maxRateLimitPerMinute + 1) },
      { ...none, rateLimit: '1.5' },
      { ...none, rateLimit: '-3' },
      { ...none, origins: ['https://app.example.com', 'http://localhost:5173', 'https://*.example.com'] },
      { ...none, origins: ['app.example.com'] },
      { ...none, origins: ['ftp://example.com'] },
      { ...none, origins: Array.from({ length: L.maxRestrictions }, (_, i) => `https://a${i}.example.com`) },
      { ...none, origins: Array.from({ length: L.maxRestrictions + 1 }, (_, i) => `https://a${i}.example.com`) },
      { ...none, bundleIds: ['b'.repeat(L.bundleIdLength)] },
      { ...none, bundleIds: ['b'.repeat(L.bundleIdLength + 1)] },
      { ...none, bundleIds: Array.from({ length: L.maxRestrictions + 1 }, (_, i) => `com.example.a${i}`) },
    ];
    for (const draft of drafts) {
      const clientOk = Object.keys(keyDraftProblems(draft)).length === 0;
      expect(CreateKey.safeParse(body(draft)).success, JSON.stringify(draft).slice(0, 80)).toBe(clientOk);
    }
  });
});

describe('projectNameProblem', () => {
  it('agrees with the API', () => {
    for (const name of ['', '   ', 'Web shop', 'n'.repeat(PROJECT_NAME_LENGTH), 'n'.repeat(PROJECT_NAME_LENGTH + 1)]) {
      expect(projectNameProblem(name) === undefined, name.slice(0, 20)).toBe(CreateProject.safeParse({ name }).success);
    }
    expect(projectNameProblem('')).toBe('Give the project a name, for example “Web shop”.');
  });
});
