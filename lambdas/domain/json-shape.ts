/**
 * The shape limits of a JSON request body (docs/api.md, "Limits"), checked on its bytes as they arrive,
 * before any of the value is built: nesting depth (LIMITS.maxJsonDepth) and the number of values
 * (LIMITS.maxJsonValues). JSON.parse gives a 5 MiB body of nested brackets a second or more of one
 * core and hundreds of MB; this scan refuses it after its 33rd byte.
 *
 * One linear pass, one state for the whole body, fed chunk by chunk (a gzip stream's output) or all at
 * once. Outside strings it tracks the depth and counts values; inside strings it only looks for the
 * closing quote (a backslash escapes the next byte, across chunk ends too). Structural bytes are ASCII,
 * and a UTF-8 sequence never contains an ASCII byte, so the bytes need no decoding first. The scan does
 * not validate JSON: for a valid body its figures are exact, and an invalid one is refused by JSON.parse
 * afterwards, whatever the scan made of it.
 *
 * Values are counted as array elements plus object members (a member's key is not counted apart from
 * its value; the body itself is not counted): `{"events":[{"name":"a"},{"name":"b"}]}` holds 5.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

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
CLASS[0x7b /* { */] = OPEN;
CLASS[0x5d /* ] */] = CLOSE;
CLASS[0x7d /* } */] = CLOSE;
CLASS[0x2c /* , */] = COMMA;

/** Which limit a body broke. */
export type ShapeRefusal = 'depth' | 'values';

export class JsonShapeScan {
  private depth = 0;
  private values = 0;
  private inString = false;
  /** The previous byte, in a string, was an unpaired backslash (possibly at the end of the last chunk). */
  private escaped = false;
  /** An array or object was just opened: the next value start is its first element or member. */
  private opened = false;

  constructor(
    private readonly maxDepth: number,
    private readonly maxValues: number,
  ) {}

  /** Scans the next bytes of the body; the limit they break, if any (then stop feeding it). */
  write(bytes: Uint8Array): ShapeRefusal | undefined {
    const { maxDepth, maxValues } = this;
    let { depth, values, inString, escaped, opened } = this;
    const n = bytes.length;
    let i = 0;
    let refusal: ShapeRefusal | undefined;
    while (i < n) {
      if (inString) {
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
      switch (CLASS[bytes[i++]!]) {
        case SKIP:
          continue;
        case STRING:
          inString = true;
          if (opened) {
            values++;
            opened = false;
          }
          break;
        case OPEN:
          if (opened) values++;
          opened = true;
          if (++depth > maxDepth) refusal = 'depth';
          break;
        case CLOSE:
          depth--;
          opened = false;
          continue;
        case COMMA:
          values++;
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
    this.depth = depth;
    this.values = values;
    this.inString = inString;
    this.escaped = escaped;
    this.opened = opened;
    return refusal;
  }
}
