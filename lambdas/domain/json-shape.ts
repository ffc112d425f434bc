/**
 * The shape limits of a JSON request body (docs/api.md, "Limits"), checked on its bytes as they arrive,
 * before any of the value is built: nesting depth (LIMITS.maxJsonDepth), the number of values
 * (LIMITS.maxJsonValues) and the number of distinct object keys (LIMITS.maxJsonKeys). JSON.parse gives
 * a 5 MiB body of nested brackets a second or more of one core and hundreds of MB, and 100,000
 * distinct keys a tenth of a second; this scan refuses the first after its 33rd byte, the second at
 * its 10,001st key.
 *
 * One linear pass, one state for the whole body, fed chunk by chunk (a gzip stream's output) or all at
 * once. Outside strings it tracks the depth and counts values; inside strings it only looks for the
 * closing quote (a backslash escapes the next byte, across chunk ends too), and hashes the bytes of
 * keys. Structural bytes are ASCII, and a UTF-8 sequence never contains an ASCII byte, so the bytes need
 * no decoding first. The scan does not validate JSON: for a valid body its figures are exact, and an
 * invalid one is refused by JSON.parse afterwards, whatever the scan made of it.
 *
 * Values are counted as array elements plus object members (a member's key is not counted apart from
 * its value; the body itself is not counted): `{"events":[{"name":"a"},{"name":"b"}]}` holds 5 values
 * and 2 distinct keys. Keys compare as written: `"a"` and `"\u0061"` count as two. They are told apart
 * by a 53-bit hash of their bytes, so two different keys count as one with a probability of about one in
 * 10^8 at 10,000 keys: the count can only come out lower, never refuse a body that is within the limit.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;

/** What a byte outside strings is: the scan's cases (0, the default: a byte of a number or literal). */
const SKIP = 1;
const STRING = 2;
const OPEN = 3;
const CLOSE = 4;
const COMMA = 5;
const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d, 0x3a /* : */]) CLASS[c] = SKIP;
CLASS[QUOTE] = STRING;
CLASS[0x5b /* [ */] = OPEN;
CLASS[OPEN_OBJECT] = OPEN;
CLASS[0x5d /* ] */] = CLOSE;
CLASS[0x7d /* } */] = CLOSE;
CLASS[0x2c /* , */] = COMMA;

/** Which limit a body broke. */
export type ShapeRefusal = 'depth' | 'values' | 'keys';

export interface ShapeLimits {
  maxDepth: number;
  maxValues: number;
  maxKeys: number;
}

export class JsonShapeScan {
  private depth = 0;
  private values = 0;
  private inString = false;
  /** The previous byte, in a string, was an unpaired backslash (possibly at the end of the last chunk). */
  private escaped = false;
  /** An array or object was just opened: the next value start is its first element or member. */
  private opened = false;
  /** The innermost open container is an object; the enclosing ones' kinds, innermost last. */
  private inObject = false;
  private readonly enclosing: boolean[] = [];
  /** The next string starts a key: just after `{`, or after a comma in an object. */
  private keyNext = false;
  private inKey = false;
  /** Two 32-bit FNV-1a style hashes of the current key's bytes, 53 bits of which identify it. */
  private h1 = 0;
  private h2 = 0;
  private readonly keys = new Set<number>();

  constructor(private readonly limits: ShapeLimits) {}

  /** Scans the next bytes of the body; the limit they break, if any (then stop feeding it). */
  write(bytes: Uint8Array): ShapeRefusal | undefined {
    const { maxDepth, maxValues, maxKeys } = this.limits;
    let { depth, values, inString, escaped, opened, inObject, keyNext, inKey, h1, h2 } = this;
    const n = bytes.length;
    let i = 0;
    let refusal: ShapeRefusal | undefined;
    while (i < n) {
      if (inString) {
        if (inKey) {
          for (; i < n; i++) {
            const c = bytes[i]!;
            if (escaped) escaped = false;
            else if (c === BACKSLASH) escaped = true;
            else if (c === QUOTE) {
              inString = false;
              break;
            }
            h1 = Math.imul(h1 ^ c, 0x01000193);
            h2 = Math.imul(h2 ^ c, 0x5bd1e995);
          }
          if (inString) continue;
          i++;
          inKey = false;
          this.keys.add((h1 >>> 0) * 0x200000 + (h2 >>> 11));
          if (this.keys.size > maxKeys) {
            refusal = 'keys';
            break;
          }
          continue;
        }
        for (; i < n; i++) {
          const c = bytes[i]!;
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) {
            inString = false;
            i++;
            break;
          }
        }
        continue;
      }
      const c = bytes[i++]!;
      switch (CLASS[c]) {
        case SKIP:
          continue;
        case STRING:
          inString = true;
          if (keyNext) {
            inKey = true;
            keyNext = false;
            h1 = 0x811c9dc5;
            h2 = 0x12b9b0a1;
          }
          if (opened) {
            values++;
            opened = false;
          }
          break;
        case OPEN:
          if (opened) values++;
          opened = true;
          this.enclosing.push(inObject);
          inObject = keyNext = c === OPEN_OBJECT;
          if (++depth > maxDepth) refusal = 'depth';
          break;
        case CLOSE:
          depth--;
          opened = keyNext = false;
          inObject = this.enclosing.pop() ?? false;
          continue;
        case COMMA:
          values++;
          keyNext = inObject;
          break;
        default:
          if (opened) {
            values++;
            opened = false;
          }
      }
      if (values > maxValues) refusal = 'values';
      if (refusal) break;
    }
    Object.assign(this, { depth, values, inString, escaped, opened, inObject, keyNext, inKey, h1, h2 });
    return refusal;
  }
}
