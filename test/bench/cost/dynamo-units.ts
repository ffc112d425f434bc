/**
 * DynamoDB item sizes and billed request units, from DynamoDB's documented rules. Pure: no I/O.
 *
 * Item size ("DynamoDB item sizes and formats", DynamoDB developer guide): the sum over attributes
 * of the UTF-8 bytes of the name plus the size of the value:
 *  - String: UTF-8 bytes. Binary: raw bytes. Boolean, Null: 1 byte.
 *  - Number: about 1 byte per two significant digits, plus 1 (leading and trailing zeros trimmed).
 *  - List, Map: 3 bytes plus their elements, plus 1 byte per element (a Map element also counts its name).
 *  - Sets: the sum of their elements.
 *
 * Units ("DynamoDB read and write operations"; on-demand pricing page):
 *  - write: 1 WRU per 1 KB or part of the item written (never less than 1); PutItem and UpdateItem
 *    bill the larger of the item before and after, DeleteItem the deleted item; BatchWriteItem bills
 *    each put or delete on its own; a transactional write bills twice that on the table (indexes once).
 *  - a write whose condition fails still bills, on the item as it stands (1 WRU when there is none;
 *    a PutItem on a missing key bills the item it would have written);
 *  - read: strongly consistent 1 RRU per 4 KB or part (never less than 1, also for a missing item),
 *    eventually consistent half that; a Query or Scan page bills the total size of the items it
 *    evaluated (before any filter), rounded up to 4 KB once per page.
 *  - a global secondary index is written when the item enters it (it has the index's keys), leaves
 *    it, or changes while in it: 1 write of the index entry, 2 (delete and put) when its index key
 *    changes; the entry is the projected attributes (ALL: the whole item) and has its own 1 KB rounding.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Item = Record<string, AttributeValue>;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** Significant digits of a DynamoDB number string, leading and trailing zeros trimmed (0 counts 1). */
export function significantDigits(n: string): number {
  const mantissa = n.trim().replace(/^[+-]/, '').split(/e/i)[0]!.replace('.', '');
  const trimmed = mantissa.replace(/^0+/, '').replace(/0+$/, '');
  return Math.max(1, trimmed.length);
}

export const numberSize = (n: string) => Math.ceil(significantDigits(n) / 2) + 1;

export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS !== undefined) return v.SS.reduce((s, x) => s + utf8(x), 0);
  if (v.NS !== undefined) return v.NS.reduce((s, x) => s + numberSize(x), 0);
  if (v.BS !== undefined) return v.BS.reduce((s, x) => s + x.length, 0);
  if (v.L !== undefined) return 3 + v.L.reduce((s, x) => s + 1 + valueSize(x), 0);
  if (v.M !== undefined) return 3 + Object.entries(v.M).reduce((s, [k, x]) => s + 1 + utf8(k) + valueSize(x), 0);
  throw new Error(`Unknown attribute value type: ${Object.keys(v).join(',')}`);
}

export function itemSize(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8(name) + valueSize(value);
  return size;
}

export const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

export const readUnits = (bytes: number, consistent: boolean) => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

/** One page of a Query or Scan: the items it evaluated, rounded once. */
export const pageReadUnits = (bytesEvaluated: number, consistent: boolean) => readUnits(bytesEvaluated, consistent);

export interface IndexLayout {
  name: string;
  keys: string[];
  /** 'ALL', 'KEYS_ONLY' or 'INCLUDE' with the non-key attributes it projects. */
  projection: { type: 'ALL' | 'KEYS_ONLY' | 'INCLUDE'; include?: string[] };
}

export interface TableInfo {
  name: string;
  keys: string[];
  indexes: IndexLayout[];
}

/** The index entry of an item: its projected attributes, or undefined when the item is not in the index. */
export function indexEntry(table: TableInfo, index: IndexLayout, item: Item | undefined): Item | undefined {
  if (!item || !index.keys.every((k) => item[k] !== undefined)) return undefined;
  if (index.projection.type === 'ALL') return item;
  const keep = new Set([...table.keys, ...index.keys, ...(index.projection.include ?? [])]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => keep.has(k)));
}

const sameValue = (a: AttributeValue | undefined, b: AttributeValue | undefined) => JSON.stringify(a) === JSON.stringify(b);
const sameEntry = (a: Item, b: Item) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => sameValue(a[k], b[k]));
};

/** Writes one index receives when an item goes from `before` to `after` (either may be absent). */
export function indexWrites(table: TableInfo, index: IndexLayout, before: Item | undefined, after: Item | undefined): number[] {
  const old = indexEntry(table, index, before);
  const next = indexEntry(table, index, after);
  if (!old && !next) return [];
  if (!old) return [writeUnits(itemSize(next!))];
  if (!next) return [writeUnits(itemSize(old))];
  const keyChanged = index.keys.some((k) => !sameValue(old[k], next[k]));
  if (keyChanged) return [writeUnits(itemSize(old)), writeUnits(itemSize(next))];
  if (sameEntry(old, next)) return [];
  return [writeUnits(itemSize(next))];
}

export interface WriteBill {
  table: number;
  /** WRU per index name. */
  indexes: Record<string, number>;
}

/**
 * What one item write bills. `before` is the item as it stood, `after` as it stands once the write
 * applied (undefined for a delete); `failed` when the condition failed (nothing changed).
 */
export function itemWriteBill(
  table: TableInfo,
  op: 'put' | 'update' | 'delete',
  before: Item | undefined,
  after: Item | undefined,
  options: { failed?: boolean; transactional?: boolean; attempted?: Item } = {},
): WriteBill {
  const factor = options.transactional ? 2 : 1;
  if (options.failed) {
    const basis = before ?? (op === 'put' ? options.attempted : undefined);
    return { table: factor * (basis ? writeUnits(itemSize(basis)) : 1), indexes: {} };
  }
  const sizes = [before, after].filter((i): i is Item => i !== undefined).map(itemSize);
  const tableUnits = factor * writeUnits(Math.max(0, ...sizes));
  const indexes: Record<string, number> = {};
  for (const index of table.indexes) {
    const writes = indexWrites(table, index, before, after);
    if (writes.length) indexes[index.name] = writes.reduce((a, b) => a + b, 0);
  }
  return { table: tableUnits, indexes };
}
