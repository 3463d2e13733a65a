/**
 * A long failure detail (a loader's stderr, Run Command's output) shortened for a message that people read: the
 * first cause kept (the first line that says what went wrong, else the first line), then the end of the text,
 * each cut at a word boundary and joined by " … ". Cutting the text at a fixed count from its end drops the first
 * cause and leaves half a word in front ("Failed (e summary …").
 */

/** Words that mark the line saying what went wrong. */
const CAUSE =
  /\b(error|fail(ed|s|ure)?|exception|exit(ed)?|kill(ed)?|refus(ed|es)|denied|not (written|found)|cannot|timed? ?out)\b/i;

/** `text` in at most `max` characters (default 400), its first cause kept. */
export function failureExcerpt(text: string, max = 400): string {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  const whole = lines.join(' | ');
  if (whole.length <= max) return whole;
  const causeAt = Math.max(
    0,
    lines.findIndex((l) => CAUSE.test(l)),
  );
  const head = headOf(lines[causeAt]!, Math.floor(max / 2));
  const rest = lines.slice(causeAt + 1).join(' | ');
  const room = max - head.length - ' … '.length;
  if (!rest || room <= 0) return head;
  const tail = tailOf(rest, room);
  return tail === rest ? `${head} | ${rest}` : `${head} … ${tail}`;
}

/** The start of `s` in at most `max` characters, cut after a whole word (with "…" when cut). */
function headOf(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > 0 ? cut.slice(0, space) : cut}…`;
}

/** The end of `s` in at most `max` characters, starting at a whole word. */
function tailOf(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(s.length - max);
  const space = cut.indexOf(' ');
  return space >= 0 && space < cut.length - 1 ? cut.slice(space + 1) : cut;
}
