import { exposedInputs } from '../tool/input-form.js';
import type { AppMode, HostApp, InputVariableType } from '../types/index.js';
import type { ConsoleServer } from './server-json.js';

/** An input variable of an app, as `GET /apps` shows it: what its parameter description is for. */
export interface ConsoleAppInput {
  variable: string;
  label: string;
  type: InputVariableType;
  required: boolean;
  /** What clients are told when the server gives no parameter description: the form's own, or its label. */
  defaultDescription: string;
}

/** An app as `GET /apps` shows it, with its server (`null` when it has none). */
export interface ConsoleApp {
  id: string;
  name: string;
  mode: AppMode;
  description: string;
  /** The inputs its tool takes, in the form's order (the ones a client cannot fill are left out). */
  inputs: ConsoleAppInput[];
  server: ConsoleServer | null;
}

export function toConsoleApp(app: HostApp, server: ConsoleServer | null): ConsoleApp {
  return {
    id: app.id,
    name: app.name,
    mode: app.mode,
    description: app.description ?? '',
    inputs: exposedInputs(app).map((input) => ({
      variable: input.variable,
      label: nonEmpty(input.label) ? input.label : input.variable,
      type: input.type,
      required: input.required === true,
      defaultDescription: [input.description, input.label].find(nonEmpty) ?? '',
    })),
    server,
  };
}

const nonEmpty = (text: unknown): text is string => typeof text === 'string' && text.trim() !== '';
