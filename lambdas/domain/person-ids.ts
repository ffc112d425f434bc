/**
 * The person rule (docs/decisions/erasure.md): a person is every ID linked to a given one, now or as it
 * was. `links` are pointer rows (the identity stream's `id -> canonical_id`, the identities table's
 * items), in any order, old and current alike; two IDs of one row belong to one person, and so on
 * transitively. The answer is the connected group of `seed` (itself included), sorted. Pure; deletion
 * uses it, and so can an export of a person.
 */
export interface IdLink {
  id: string;
  canonical_id: string;
}

export function personIds(seed: string, links: Iterable<IdLink>): string[] {
  const neighbours = new Map<string, Set<string>>();
  const join = (a: string, b: string) => {
    if (!neighbours.has(a)) neighbours.set(a, new Set());
    neighbours.get(a)!.add(b);
  };
  for (const l of links) {
    join(l.id, l.canonical_id);
    join(l.canonical_id, l.id);
  }
  const found = new Set([seed]);
  const queue = [seed];
  while (queue.length > 0) {
    for (const next of neighbours.get(queue.pop()!) ?? []) {
      if (found.has(next)) continue;
      found.add(next);
      queue.push(next);
    }
  }
  return [...found].sort();
}
