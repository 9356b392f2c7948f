/**
 * A host's error hook, made safe to call: it gets its own copy of the context, and a hook that
 * throws does not turn into a second failure of the request.
 */
export function safeHook<Context extends object>(
  hook: (error: unknown, context: Context) => void,
): (error: unknown, context: Context) => void {
  return (error, context) => {
    try {
      hook(error, { ...context });
    } catch {
      // Nothing more to do: the hook is where failures would have been told.
    }
  };
}
