/**
 * The fixture tools of the conformance suite's `tasks-*` scenarios (the tasks extension of
 * 2026-07-28, SEP-2663), as host apps, with the task support each scenario expects of its tool.
 * The suite's own descriptions of them are in `node_modules/@modelcontextprotocol/conformance`
 * (search for `slow_compute`).
 */
import { AppRunError } from 'express-app-mcp';

const optionalText = (variable) => ({ type: 'text-input', variable, label: variable, required: false });

/** @param {string} name @param {import('express-app-mcp').InputVariable[]} inputForm */
const fixture = (name, inputForm = []) => ({
  id: name,
  name,
  mode: 'completion',
  description: `Conformance fixture ${name}`,
  inputForm,
});

/** @type {import('express-app-mcp').HostApp[]} */
export const TASK_FIXTURE_APPS = [
  fixture('greet', [optionalText('name')]),
  fixture('slow_compute', [
    { type: 'number', variable: 'seconds', label: 'seconds', required: false },
    optionalText('label'),
  ]),
  fixture('failing_job'),
  fixture('protocol_error_job'),
  fixture('confirm_delete', [optionalText('filename')]),
  fixture('multi_input'),
  fixture('test_tool_with_task'),
];

/** Each tool's `task_support`, as the scenarios name it: sync-only, task-supporting, or task-only. */
export const TASK_SUPPORT = {
  greet: 'forbidden',
  slow_compute: 'optional',
  failing_job: 'required',
  protocol_error_job: 'optional',
  confirm_delete: 'optional',
  multi_input: 'optional',
  test_tool_with_task: 'required',
};

/** Longer than the package's grace window: a run this long becomes a task. */
const PAST_GRACE_MS = 300;

/** Waits `ms`, or until the run is stopped (a `tasks/cancel`). */
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** @type {import('express-app-mcp').RunApp} */
export async function runTaskFixture(run) {
  const { inputs, signal } = run;
  switch (run.app.id) {
    case 'greet':
      return { answer: `Hello, ${inputs.name ?? 'World'}!` };
    case 'slow_compute': {
      const seconds = Number(inputs.seconds ?? 0);
      await sleep(seconds * 1000, signal);
      return { answer: `computed ${inputs.label ?? 'result'} in ${seconds} s` };
    }
    case 'failing_job':
      await sleep(1000, signal);
      throw new AppRunError('the job failed, as it always does');
    case 'protocol_error_job':
      // Not an AppRunError: the app itself fails, and its task fails with a JSON-RPC error.
      await sleep(PAST_GRACE_MS, signal);
      throw new Error('the job crashed');
    case 'confirm_delete': {
      // Asks once it is a task: the question is the task's input request.
      await sleep(PAST_GRACE_MS, signal);
      const answer = await run.ask({
        message: `Delete ${inputs.filename ?? 'the file'}?`,
        fields: [{ type: 'checkbox', variable: 'confirm', label: 'Confirm', required: true }],
      });
      const confirmed = answer.action === 'accept' && answer.values.confirm === true;
      return { answer: confirmed ? `deleted ${inputs.filename ?? 'nothing'}` : 'kept it' };
    }
    case 'multi_input': {
      // Two questions at once: the task waits on both keys, answered one by one.
      await sleep(PAST_GRACE_MS, signal);
      const [name, confirm] = await Promise.all([
        run.ask({
          key: 'name',
          message: 'Your name?',
          fields: [{ type: 'text-input', variable: 'name', label: 'Name', required: true }],
        }),
        run.ask({
          key: 'confirm',
          message: 'Go on?',
          fields: [{ type: 'checkbox', variable: 'confirm', label: 'Confirm', required: true }],
        }),
      ]);
      return { answer: `both answers taken: ${name.action}, ${confirm.action}` };
    }
    case 'test_tool_with_task': {
      // Asks at once, before any task (an input_required result), then works past the grace window.
      const answer = await run.ask({
        key: 'user_name',
        message: 'What is your name?',
        fields: [{ type: 'text-input', variable: 'name', label: 'Name', required: true }],
      });
      await sleep(PAST_GRACE_MS, signal);
      return { answer: `Hello, ${answer.action === 'accept' ? answer.values.name : 'nobody'}!` };
    }
    default:
      return undefined;
  }
}
