/** RFC 6750 §2.1: `Authorization: Bearer <b64token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The bearer token of an `Authorization` header; `undefined` when there is none or it is not one. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization)?.[1];
}
