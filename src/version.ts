/** This package's version, shown as `serverInfo.version` by default; a test keeps it equal to package.json. */
export const PACKAGE_VERSION = '0.2.0';
