/** Protocol revisions served on the legacy (initialize handshake) path, oldest first (SPEC §2.1). */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** Revisions served on the modern, stateless path (SPEC §3). */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

export const LATEST_LEGACY_VERSION = '2025-11-25';
/** MCP 2025-06-18 transports: a request without the header is taken as 2025-03-26. */
export const DEFAULT_HEADER_VERSION = '2025-03-26';
export const FIRST_MODERN_VERSION = '2026-07-28';

const legacy = new Set<string>(LEGACY_VERSIONS);
const supported = new Set<string>(SUPPORTED_VERSIONS);

export const isSupportedVersion = (version: string): boolean => supported.has(version);
export const isLegacyVersion = (version: string): boolean => legacy.has(version);

/** `initialize` answers with the client's version when we speak it, else our latest legacy one; never an error. */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && legacy.has(requested) ? requested : LATEST_LEGACY_VERSION;
}

/**
 * What a protocol version enables. Versions are `YYYY-MM-DD`, so string order is date order.
 * - structured: `title`, `outputSchema`, `structuredContent` (2025-06-18)
 * - icons and argument errors as tool results, SEP-1303 (2025-11-25)
 */
export interface VersionFeatures {
  readonly structured: boolean;
  readonly toolErrorsAsResults: boolean;
  readonly icons: boolean;
  readonly modern: boolean;
}

function computeFeatures(version: string): VersionFeatures {
  return Object.freeze({
    structured: version >= '2025-06-18',
    toolErrorsAsResults: version >= '2025-11-25',
    icons: version >= '2025-11-25',
    modern: version >= FIRST_MODERN_VERSION,
  });
}

/** One frozen object per supported version, so the hot path allocates nothing to ask. */
const FEATURES = new Map(SUPPORTED_VERSIONS.map((version) => [version, computeFeatures(version)]));

export function featuresOf(version: string): VersionFeatures {
  return FEATURES.get(version) ?? computeFeatures(version);
}
