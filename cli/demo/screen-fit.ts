/**
 * Terminal columns a text takes. Code points count one column, except East Asian wide and fullwidth ones and
 * emoji (two) and combining marks, zero-width characters and variation selectors (none). The live view writes only
 * its own words, keys shown by `readableKey` and endpoints: this covers what those can hold.
 */
export function columnsOf(text: string): number {
  let columns = 0;
  for (const char of text) columns += charColumns(char.codePointAt(0) as number);
  return columns;
}

/** `text` cut to at most `columns` columns, ending in `~` when cut; never wider, so a terminal never wraps it. */
export function fitLine(text: string, columns: number): string {
  if (columnsOf(text) <= columns) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = charColumns(char.codePointAt(0) as number);
    if (used + w > columns - 1) break;
    out += char;
    used += w;
  }
  return `${out}~`;
}

function charColumns(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x2060) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}
