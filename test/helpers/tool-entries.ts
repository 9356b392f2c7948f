/**
 * How the demo and example apps' tools are listed (`tools/list`, 2025-11-25): what every entry
 * shares, so that each case writes only what is its own.
 */

/** The hints of an app that only reads. */
export const READ_ONLY = { readOnlyHint: true, openWorldHint: false };

/** An object schema of `properties`, with the `required` ones named. */
export const objectSchema = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties,
  required,
});

/** The input of a chat app: the person's query. */
export const QUERY = { type: 'string', description: 'User Input/Question content' };

/** The output of a chat app: its answer. */
export const ANSWER_SCHEMA = objectSchema({ answer: { type: 'string' } }, ['answer']);

/** The entry of an app's tool: named after its title, a task when the client asks, read-only unless said otherwise. */
export const toolEntry = (
  title: string,
  description: string,
  inputSchema: unknown,
  outputSchema: unknown,
  annotations: Record<string, boolean> = READ_ONLY,
) => ({
  execution: { taskSupport: 'optional' },
  name: title.replace(/ /g, '_'),
  title,
  description,
  inputSchema,
  outputSchema,
  annotations,
});

/** The entry of a chat app's tool: a query in, an answer out. */
export const chatToolEntry = (title: string, description: string) =>
  toolEntry(title, description, objectSchema({ query: QUERY }, ['query']), ANSWER_SCHEMA);
