/** This package's name, the instrumentation scope of its spans. */
export const PACKAGE_NAME = '@durable-lambda/otel';
/** This package's version, as its package.json states it. */
export const PACKAGE_VERSION = '0.1.0';
