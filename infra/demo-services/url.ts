/**
 * The base URL the examples are given for their HTTP services when no `servicesUrl` is: a host
 * that resolves nowhere (`.invalid` is reserved), answered inside each function by the demo
 * stand-ins (`in-process.ts`), so the deployed app opens no endpoint of its own.
 */
export const IN_PROCESS_SERVICES_URL = 'https://demo-services.invalid/';
