/** The options `mcpMetrics` accepts (docs/options.md lists them); anything else is refused. */
export const METRICS_OPTIONS: readonly string[] = ['registry', 'prefix', 'serverLabel', 'durationBuckets'];
