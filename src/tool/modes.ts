import type { AppMode } from '../types/index.js';

/**
 * What an app's mode means for its tool (README, "runApp, mode by mode"). A new mode is one entry
 * of `MODES`; the tool's arguments, schemas and results read it from there.
 */
export interface ModeTraits {
  /**
   * The run's `query`: `argument`, the user's message as a required `query` argument (chat
   * modes; only these can keep conversations); `empty`, always `''` (a completion); `none`.
   */
  readonly query: 'argument' | 'empty' | 'none';
  /**
   * What a run produces: `outputs`, named values (declared, checked, and `structuredContent`);
   * `answer`, a text with files.
   */
  readonly results: 'outputs' | 'answer';
}

const CHAT: ModeTraits = { query: 'argument', results: 'answer' };

export const MODES: Readonly<Record<AppMode, ModeTraits>> = Object.freeze({
  workflow: { query: 'none', results: 'outputs' },
  chat: CHAT,
  'advanced-chat': CHAT,
  'agent-chat': CHAT,
  completion: { query: 'empty', results: 'answer' },
});

/** A mode the host's types do not know (an app from untyped code): an answer, and no query. */
const OTHER_MODE: ModeTraits = { query: 'none', results: 'answer' };

export const traitsOf = (mode: AppMode): ModeTraits =>
  Object.hasOwn(MODES, mode) ? MODES[mode] : OTHER_MODE;

/** Whether the runs of a mode produce named outputs rather than an answer. */
export const producesOutputs = (mode: AppMode): boolean => traitsOf(mode).results === 'outputs';
