import { token } from './api.js';
import { h, replace, uid } from './dom.js';

/**
 * What the page shows when the console answers 401. Hosts that sign people in with a cookie give a
 * sign-in page (`signInUrl`), which the page links to; otherwise it asks for the console's bearer
 * token, kept for this tab only.
 * @param {HTMLElement} main
 * @param {{ signInUrl: string, rejected: boolean, signedIn: () => void }} options
 */
export function signInView(main, { signInUrl, rejected, signedIn }) {
  if (signInUrl) {
    replace(
      main,
      h(
        'section',
        { class: 'card sign-in', 'aria-labelledby': 'sign-in-title' },
        h('h2', { id: 'sign-in-title', tabindex: '-1' }, 'Sign in'),
        h('p', {}, 'You are not signed in, or your session has ended.'),
        h('p', {}, h('a', { class: 'button primary', href: signInUrl }, 'Sign in')),
      ),
    );
    return;
  }
  const id = uid('token');
  const input = h('input', {
    id,
    type: 'password',
    autocomplete: 'current-password',
    'aria-describedby': `${id}-hint${rejected ? ` ${id}-error` : ''}`,
    'aria-invalid': rejected ? 'true' : undefined,
    required: true,
  });
  const form = h(
    'form',
    { class: 'card sign-in', 'aria-labelledby': 'sign-in-title', novalidate: true },
    h('h2', { id: 'sign-in-title' }, 'Sign in'),
    h(
      'p',
      { class: 'muted', id: `${id}-hint` },
      'Enter the console token of this server. It is kept for this browser tab only.',
    ),
    rejected &&
      h(
        'p',
        { class: 'alert', role: 'alert', id: `${id}-error` },
        'That token was not accepted. Check it and try again.',
      ),
    h('div', { class: 'field' }, h('label', { for: id }, 'Console token'), input),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!value) return input.focus();
    token.set(value);
    signedIn();
  });
  replace(main, form);
  input.focus();
}
