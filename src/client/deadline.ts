/**
 * Settles as `work` does, or rejects with `expired()` after `ms` milliseconds, whichever comes
 * first. For steps the SDK puts no time limit on, such as waiting for an SSE stream to open.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
