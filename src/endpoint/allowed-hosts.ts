import { z } from 'zod';

/**
 * One `allowedHosts` entry, as the `Host` value it allows. Entries are host names as
 * `@modelcontextprotocol/express` takes them (`mcp.example.com`, `[::1]`), allowed on any port; an
 * entry that names a port (`mcp.example.com:8443`, `http://mcp.example.com:9000`) allows that port
 * only, and a whole origin (`https://mcp.example.com`) counts as its host (and port), so lists
 * written for either meaning work. `null` for anything else (a path, credentials, a query, no host).
 */
export function allowedHostname(entry: string): string | null {
  const text = entry.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    return null;
  }
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && !url.username && !url.password;
  // `new URL` accepts `host/` and `host?`; only what reads as a host (or an origin) is an entry.
  const trailing = /[/?#]$/.test(text) && !text.includes('://');
  if (!bare || trailing || url.hostname === '') return null;
  // `URL` lower-cases the name and keeps IPv6 addresses in brackets, as they appear in `Host`; its
  // `port` is empty for a scheme's default port, which a `Host` value leaves out.
  return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
}

/** The `allowedHosts` option: each entry becomes the `Host` value it allows; a bad one is named. */
export const AllowedHostsSchema = z.array(
  z.string().transform((entry, context) => {
    const hostname = allowedHostname(entry);
    if (hostname === null) {
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not a host name (mcp.example.com) or an origin (https://mcp.example.com)`,
      });
      return z.NEVER;
    }
    return hostname;
  }),
);
