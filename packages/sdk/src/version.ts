/** This package's version (`@durable-lambda/sdk`), as its package.json states it. */
export const SDK_VERSION = '0.1.0';
/** The name this SDK reports in user agents. */
export const SDK_NAME = 'durable-lambda-sdk';
