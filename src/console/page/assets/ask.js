import { h } from './dom.js';

/**
 * Where a run that waits for a person (`run.ask`) will be answered in the page. In the 2026-07-28
 * revision the server answers `tools/call` with `resultType: "input_required"`, its
 * `inputRequests` (each an elicitation: a message and a flat `requestedSchema`) and a signed
 * `requestState`; the client asks the person and calls the tool again with `inputResponses` and
 * that `requestState`.
 *
 * Not built yet. Until it is, the page declares no elicitation capability, so a server knows the
 * page cannot ask anyone (`run.canAsk` is false) and an app that needs an answer ends with an error
 * result saying so, which the page shows like any other result.
 */

/** What the page tells servers it can do, on every request (`clientCapabilities`). */
export const CLIENT_CAPABILITIES = {};

/**
 * What the page shows for an `input_required` result: that it cannot answer it.
 * @param {{ inputRequests?: Record<string, { params?: { message?: string } }> }} result
 */
export function inputRequiredView(result) {
  const questions = Object.values(result.inputRequests ?? {})
    .map((request) => request.params?.message)
    .filter((message) => typeof message === 'string');
  return h(
    'div',
    { class: 'notice', role: 'alert' },
    h(
      'p',
      {},
      'The app asks for a person’s answer, which this page cannot give yet. Answer it from an MCP client that supports elicitation.',
    ),
    questions.length > 0 &&
      h(
        'ul',
        {},
        questions.map((question) => h('li', {}, question)),
      ),
  );
}
