import type { ToolFeatures } from './tool/features.js';

/** This package's version, shown as `serverInfo.version` by default; a test keeps it equal to package.json. */
export const PACKAGE_VERSION = '0.2.0';

/**
 * Protocol revisions served on the legacy (initialize handshake) path, oldest first
 * (docs/http-contract.md, "The 2025 era").
 */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** Revisions served on the modern, stateless path (docs/http-contract.md, "The 2026-07-28 era"). */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const SUPPORTED_VERSIONS: readonly string[] = [...LEGACY_VERSIONS, ...MODERN_VERSIONS];

export const LATEST_LEGACY_VERSION = '2025-11-25';
/** MCP 2025-06-18 transports: a request without the header is taken as 2025-03-26. */
export const DEFAULT_HEADER_VERSION = '2025-03-26';
export const FIRST_MODERN_VERSION = '2026-07-28';

const legacy = new Set<string>(LEGACY_VERSIONS);
const modern = new Set<string>(MODERN_VERSIONS);

export const isModernVersion = (version: string): boolean => modern.has(version);
export const isLegacyVersion = (version: string): boolean => legacy.has(version);

/** `initialize` answers with the client's version when we speak it, else our latest legacy one; never an error. */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && legacy.has(requested) ? requested : LATEST_LEGACY_VERSION;
}

/**
 * Streamed replies are resumable (`GET` with `Last-Event-ID`) from MCP 2025-03-26, which brought
 * Streamable HTTP, up to the 2026-07-28 era, where closing a stream cancels its call.
 */
export const resumesStreams = (version: string): boolean => version >= '2025-03-26' && !modern.has(version);

/** MCP 2025-11-25 SSE polling: a resumable stream's first event primes the client with an id and no data. */
export const primesStreams = (version: string): boolean => version >= '2025-11-25';

/** MCP 2025-11-25 brought tasks (`capabilities.tasks`, `task` on `tools/call`, `tasks/*`), experimental in the 2025 era. */
export const hasLegacyTasks = (version: string): boolean => version >= '2025-11-25' && !modern.has(version);

/** Progress notifications carry a `message` from MCP 2025-03-26 on. */
export const progressHasMessage = (version: string): boolean => version >= '2025-03-26';

/** What a protocol version enables for the tool. Versions are `YYYY-MM-DD`, so string order is date order. */
function computeFeatures(version: string): ToolFeatures {
  return Object.freeze({
    annotations: version >= '2025-03-26',
    structured: version >= '2025-06-18',
    toolErrorsAsResults: version >= '2025-11-25',
    icons: version >= '2025-11-25',
    audioContent: version >= '2025-03-26',
    resourceLinks: version >= '2025-06-18',
    // The 2025-era tasks only: 2026-07-28 tools carry no `execution` (SEP-2663).
    taskSupport: hasLegacyTasks(version),
  });
}

/** One frozen object per supported version, so the hot path allocates nothing to ask. */
const FEATURES = new Map(SUPPORTED_VERSIONS.map((version) => [version, computeFeatures(version)]));

export function featuresOf(version: string): ToolFeatures {
  return FEATURES.get(version) ?? computeFeatures(version);
}

/** A server may ask the client's person with `elicitation/create` on a call's stream from MCP 2025-06-18 (2026-07-28: `input_required` instead). */
export const elicitsOnStream = (version: string): boolean => version >= '2025-06-18' && !modern.has(version);

/** MCP 2025-11-25 (SEP-1330): titled `oneOf` selects, multi-selects, and the `mode` of an elicitation. */
export const titledElicitation = (version: string): boolean => version >= '2025-11-25';
