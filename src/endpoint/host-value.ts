import { isIPv6 } from 'node:net';

/** A `Host` value split into its parts, lower-cased; `port` is `''` when there is none. */
export interface HostValue {
  /** The host as written: a name, an IPv4 address, or an IPv6 literal with its brackets. */
  hostname: string;
  port: string;
}

/**
 * RFC 9110 §7.2: `Host = uri-host [ ":" port ]`, with `uri-host` an IP literal in brackets or a
 * registered name of RFC 3986 §3.2.2 characters (unreserved, percent-encoded, sub-delims) and
 * `port = *DIGIT`. No user info, no path: `127.0.0.1:3000@evil.com` is not a host.
 */
const HOST_VALUE = /^(?:\[([^\]]*)\]|([a-z0-9\-._~%!$&'()*+,;=]*))(?::(\d*))?$/;

/** Parses a `Host` value; `null` when it is not one. */
export function parseHostValue(value: string): HostValue | null {
  const match = HOST_VALUE.exec(value.toLowerCase());
  if (!match) return null;
  const [, ipv6, name, port = ''] = match;
  if (ipv6 !== undefined) return isIPv6(ipv6) ? { hostname: `[${ipv6}]`, port } : null;
  return name ? { hostname: name, port } : null;
}
