import { randomBytes } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/**
 * The time and id of a new audit record: a UUID version 7 (RFC 9562 §5.7) whose 12 bits after the
 * version count the records of one millisecond in this process (RFC 9562 §6.2, method 1), so that
 * ordering by time, then id, reads a process's records in the order they were written.
 */
export function nextAuditId(): { at: number; id: string } {
  let at = Date.now();
  if (at <= lastMs) {
    at = lastMs;
    sequence++;
    if (sequence > 0xfff) {
      at = ++lastMs;
      sequence = 0;
    }
  } else {
    lastMs = at;
    sequence = 0;
  }
  const random = randomBytes(8);
  random[0] = ((random[0] as number) & 0x3f) | 0x80; // the RFC 9562 variant
  const hex = at.toString(16).padStart(12, '0') + (0x7000 | sequence).toString(16) + random.toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  return { at, id };
}
