import type { TaskStore } from '../../store/tasks/types.js';

/** A task's status message is written at most this often; the latest one wins. */
const NOTE_EVERY_MS = 1000;

/** What is pending of a task's status message: written when `NOTE_EVERY_MS` has passed since the last. */
interface Note {
  pending?: string;
  timer?: NodeJS.Timeout;
}

export interface TaskNotesOptions {
  store: TaskStore;
  /** Whether the task waits for a person: its status message is then the question. */
  waitsForPerson(id: string): boolean;
  /** The task changed: its waiters learn it. */
  changed(id: string): void;
  report(error: unknown): void;
}

/**
 * The app's progress messages as the status messages of the tasks this instance runs
 * (docs/tasks.md, "Storage, options and a farm"): the latest one, written at most once a second.
 */
export class TaskNotes {
  readonly #options: TaskNotesOptions;
  readonly #notes = new Map<string, Note>();

  constructor(options: TaskNotesOptions) {
    this.#options = options;
  }

  note(id: string, message: string): void {
    let note = this.#notes.get(id);
    if (!note) {
      note = {};
      this.#notes.set(id, note);
    }
    note.pending = message;
    if (note.timer === undefined) this.#write(id, note);
  }

  #write(id: string, note: Note): void {
    const message = note.pending;
    note.pending = undefined;
    if (message === undefined || this.#options.waitsForPerson(id)) {
      this.#notes.delete(id);
      return;
    }
    this.#options.store.progress(id, { statusMessage: message }).then(
      () => this.#options.changed(id),
      (error: unknown) => this.#options.report(error),
    );
    note.timer = setTimeout(() => {
      note.timer = undefined;
      if (this.#notes.get(id) === note) this.#write(id, note);
    }, NOTE_EVERY_MS);
    note.timer.unref();
  }

  /** The task ended: what is pending of its message is dropped. */
  drop(id: string): void {
    const note = this.#notes.get(id);
    if (note?.timer) clearTimeout(note.timer);
    this.#notes.delete(id);
  }
}
