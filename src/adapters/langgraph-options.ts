import { z } from 'zod';
import { functionOption } from '../util/factory-options.js';

/** The options `fromLangGraph` accepts (docs/options.md lists them). */
export const langGraphOptionsSchema = z.strictObject({
  input: functionOption("must be a function (run) => the graph's input").optional(),
  outputs: functionOption('must be a function (state, run) => the outputs').optional(),
});
