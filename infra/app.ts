/**
 * The repository's CDK app (`cdk.json` at the root runs it): the examples as durable functions
 * sharing one table, and the control API. `npx cdk synth` works offline, with no credentials.
 *
 * Context: `-c servicesUrl=https://...` (the examples' HTTP services; default: demo stand-ins
 * answering inside each function), `-c stackName=...` (default DurableLambdaExamples),
 * `-c functionNamePrefix=demo-` (fixed Lambda names `demo-checkout`, …; default: generated) and
 * `-c reservedConcurrency=N|none` (per example function and the control API; default 5).
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app';

buildApp(new App());
