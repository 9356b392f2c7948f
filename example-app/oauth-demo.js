/**
 * The example's per-user app: its server is in "oauth" mode, so a client must sign a user in
 * (here at the development authorization server) before it can call it, and the app runs for
 * that user: `run.auth` says who, and `run.endUser` is that user's own end user record.
 */

/** @type {import('express-app-mcp').HostApp} */
export const WHOAMI_APP = {
  id: 'whoami',
  name: 'Who Am I',
  mode: 'workflow',
  description: 'Tells who you are signed in as: the user this app runs for.',
  inputForm: [],
  outputs: [
    { variable: 'subject', type: 'string', description: 'Who signed in (the token subject)' },
    { variable: 'tenant', type: 'string', description: 'The tenant of the token' },
    { variable: 'scopes', type: 'array', description: 'The scopes the token grants' },
    { variable: 'end_user', type: 'string', description: 'The end user the run is attributed to' },
  ],
};

/** @param {import('express-app-mcp').AppRun} run */
export function runWhoami(run) {
  return {
    outputs: {
      subject: run.auth?.subject ?? '',
      tenant: run.auth?.tenantId ?? '',
      scopes: run.auth?.scopes ?? [],
      end_user: run.endUser.name,
    },
  };
}
