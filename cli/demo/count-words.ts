/** `1 error`, `2 errors`, `0 faults`: a count with its noun in the right number. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
