// PLACEHOLDER: stand-ins for your own apps, engine and sign-in, so that the quick start runs.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppRunError, type AuthorizeConsole, type HostApp, type LoadApp, type RunApp } from 'express-app-mcp';

export const CONSOLE_TOKEN = process.env.CONSOLE_TOKEN ?? 'change-me';

// Your apps per tenant, each with its own input form (Dify's user_input_form). Yours are in your database.
const APPS: Record<string, HostApp[]> = {
  demo: [
    {
      id: 'summarize',
      name: 'Summarize', // the tool's name is made from it
      mode: 'workflow',
      description: 'Shortens a text to its first sentence.',
      inputForm: [{ type: 'paragraph', variable: 'text', label: 'Text', required: true, max_length: 10000 }],
    },
    {
      id: 'helpdesk',
      name: 'Help Desk', // tool name: Help_Desk
      mode: 'chat', // chat modes get a required `query` besides their form
      description: 'Answers questions about our product.',
      inputForm: [
        { type: 'select', variable: 'tone', label: 'Tone', options: ['plain', 'friendly'], default: 'plain' },
      ],
    },
  ],
};

// How to find one of your apps: null when it does not exist (any more).
export const loadApp: LoadApp = async (appId, tenantId) =>
  APPS[tenantId]?.find((app) => app.id === appId) ?? null;

// How to run one of your apps once, its arguments already checked against its form.
// Call your own engine here, and pass it `signal` (aborted on cancel and timeout).
export const runApp: RunApp = async ({ app, inputs, query = '' }) => {
  if (app.mode === 'workflow') {
    return { outputs: { summary: String(inputs.text).split(/(?<=[.!?])\s/)[0] } };
  }
  if (/password/i.test(query)) throw new AppRunError('I cannot help with passwords.'); // the client reads it
  return { answer: `${inputs.tone === 'friendly' ? 'Happy to help! ' : ''}You asked: ${query}` };
};

// Who may use the console: { tenantId, canEdit }, or null (401). Yours: your sign-in and roles.
export const authorize: AuthorizeConsole = (req: Request) => {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const given = digest(req.get('authorization') ?? '');
  return timingSafeEqual(given, digest(`Bearer ${CONSOLE_TOKEN}`))
    ? { tenantId: 'demo', canEdit: true }
    : null;
};
