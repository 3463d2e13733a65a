/** Writing Java `.properties` files that `java.util.Properties.load` reads back exactly. */

function escape(s: string, isKey: boolean): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\f') out += '\\f';
    else if (ch === '=' || ch === ':' || ch === '#' || ch === '!') out += '\\' + ch;
    else if (ch === ' ' && (isKey || i === 0)) out += '\\ ';
    else if (code < 0x20 || code > 0x7e) out += '\\u' + code.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out;
}

export function formatPropertyValue(v: string | number | boolean): string {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`property value ${v} is not a finite number`);
    // Integers without exponent (YCSB parses counts with Integer/Long.parseLong).
    return Number.isInteger(v) ? BigInt(v).toString() : String(v);
  }
  return String(v);
}

/** `key=value` lines, in the given order, ISO-8859-1-safe (non-ASCII as \uXXXX). */
export function toPropertiesText(props: Record<string, string | number | boolean>, comment?: string): string {
  const lines = comment ? comment.split('\n').map((c) => `# ${c}`) : [];
  for (const [k, v] of Object.entries(props))
    lines.push(`${escape(k, true)}=${escape(formatPropertyValue(v), false)}`);
  return lines.join('\n') + '\n';
}
