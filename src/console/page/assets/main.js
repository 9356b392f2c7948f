import { activityView } from './activity-view.js';
import { ApiError, consoleRoot, onSignedOut, token } from './api.js';
import { appsView } from './apps-view.js';
import { byId, h, replace } from './dom.js';
import { providersView } from './providers-view.js';
import { signInView } from './sign-in.js';
import { toolsetsView } from './toolsets-view.js';

/**
 * The console page: the apps and their MCP servers (`#/apps`, `#/apps/<id>`), the audit log
 * (`#/activity`) and, when the host mounted the tool provider console and told the page where, the
 * tool providers (`#/providers`).
 * The host's settings arrive as data attributes of `<body>`: no inline script.
 */

const settings = document.body.dataset;
const main = byId('main');
const nav = byId('nav');
const signOut = /** @type {HTMLButtonElement} */ (byId('sign-out'));
const providersBase = settings.toolProviders
  ? new URL(settings.toolProviders.replace(/\/?$/, '/'), consoleRoot)
  : undefined;

let signedOut = false;
/** Whether the last sign-in was refused, so the form says so. */
let rejected = false;

onSignedOut(() => {
  signedOut = true;
});

nav.append(h('a', { href: '#/toolsets' }, 'Toolsets'));
if (providersBase) {
  nav.append(h('a', { href: '#/providers' }, 'Tool providers'));
}
nav.append(h('a', { href: '#/activity' }, 'Activity'));

signOut.addEventListener('click', () => {
  token.clear();
  rejected = false;
  showSignIn();
});

function showSignIn() {
  nav.hidden = true;
  signOut.hidden = true;
  signInView(main, {
    signInUrl: settings.signInUrl ?? '',
    rejected,
    signedIn: () => {
      rejected = true;
      route(true);
    },
  });
}

/** Draws the view the address names. @param {boolean} focus */
async function route(focus) {
  const [section, id] = location.hash.replace(/^#\/?/, '').split('/');
  const onProviders = section === 'providers' && providersBase !== undefined;
  const onActivity = section === 'activity';
  const onToolsets = section === 'toolsets';
  const here = onProviders ? '#/providers' : onActivity ? '#/activity' : onToolsets ? '#/toolsets' : '#/apps';
  for (const link of nav.querySelectorAll('a')) {
    const current = link.getAttribute('href') === here;
    link.toggleAttribute('aria-current', current);
    if (current) link.setAttribute('aria-current', 'page');
  }
  signedOut = false;
  try {
    if (onProviders) await providersView(main, providersBase);
    else if (onActivity) await activityView(main);
    else if (onToolsets) await toolsetsView(main, id ? decodeURIComponent(id) : undefined, focus);
    else await appsView(main, id ? decodeURIComponent(id) : undefined, focus);
    rejected = false;
    nav.hidden = false;
    // Only a token typed in here can be forgotten here; a cookie session ends on the host's side.
    signOut.hidden = token.get() === null;
    if (focus && (onProviders || onActivity))
      /** @type {HTMLElement | null} */ (main.querySelector('h2'))?.focus();
  } catch (error) {
    if (signedOut) {
      // A token the console refuses is no use any more.
      token.clear();
      return showSignIn();
    }
    replace(
      main,
      h(
        'div',
        { class: 'card alert', role: 'alert' },
        h('p', {}, error instanceof ApiError || error instanceof Error ? error.message : String(error)),
        h('button', { type: 'button', class: 'secondary', onclick: () => route(true) }, 'Try again'),
      ),
    );
  }
}

window.addEventListener('hashchange', () => route(true));
route(false);
