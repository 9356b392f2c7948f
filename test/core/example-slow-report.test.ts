/**
 * The example's Slow Report (README, "Long runs"): a workflow as slow as real ones, with a progress
 * event as each of its five stages starts, that stops when its signal aborts. Run here without
 * HTTP, with a short `seconds`; the end-to-end test drives it through the SDK client.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_APPS, runApp, SLOW_REPORT_STAGES, slowReport } from '../../example-app/apps.js';
import type { AppEvent, AppRun } from '../../src/index.js';
import { slowReportOutputs } from '../helpers/demo-cases.js';

const SLOW_REPORT = DEMO_APPS.find((app) => app.id === 'slow-report')!;

/** Runs the Slow Report as the package would, collecting its events until it ends or throws. */
async function run(inputs: Record<string, unknown>, signal = new AbortController().signal) {
  const produced = (await runApp({
    app: SLOW_REPORT,
    inputs,
    signal,
  } as unknown as AppRun)) as AsyncIterable<AppEvent>;
  const events: AppEvent[] = [];
  try {
    for await (const event of produced) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('the Slow Report', () => {
  it('takes a topic and how long to take, 20 seconds by default, and declares its outputs', () => {
    expect(SLOW_REPORT.inputForm).toEqual([
      expect.objectContaining({ type: 'text-input', variable: 'topic', required: true, max_length: 200 }),
      expect.objectContaining({ type: 'number', variable: 'seconds', required: false, default: 20 }),
    ]);
    expect(SLOW_REPORT.outputs?.map(({ variable, type }) => ({ variable, type }))).toEqual([
      { variable: 'title', type: 'string' },
      { variable: 'sections', type: 'array' },
    ]);
  });

  it('reports each of its five stages as it starts, then its outputs', async () => {
    const { events } = await run({ topic: 'tides', seconds: 0.05 });

    expect(events).toEqual([
      ...SLOW_REPORT_STAGES.map((stage, index) => ({
        event: 'progress',
        progress: index,
        total: 5,
        message: `stage ${index + 1} of 5: ${stage}`,
      })),
      { event: 'workflow_finished', outputs: slowReport('tides') },
    ]);
    expect(slowReport('tides')).toEqual(slowReportOutputs('tides'));
  });

  it.each([[-1], [601]])(
    'seconds = %j ends the run with an error event the client reads',
    async (seconds) => {
      expect(await run({ topic: 'tides', seconds })).toEqual({
        events: [{ event: 'error', message: 'seconds must be a number from 0 to 600' }],
      });
    },
  );

  it('stops in the middle of a stage when its signal aborts', async () => {
    const controller = new AbortController();
    const pending = run({ topic: 'tides', seconds: 600 }, controller.signal);
    controller.abort();
    const { events, error } = await pending;

    expect(events).toEqual([
      { event: 'progress', progress: 0, total: 5, message: 'stage 1 of 5: gathering sources' },
    ]);
    expect(error).toEqual(expect.objectContaining({ name: 'AbortError' }));
  });
});
