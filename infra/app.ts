/**
 * The repository's CDK app (`cdk.json` at the root runs it): the examples as durable functions
 * sharing one table, and the control API. `npx cdk synth` works offline, with no credentials.
 *
 * Context: `-c servicesUrl=https://...` (the examples' HTTP services; default: demo stand-ins
 * deployed with the stack) and `-c stackName=...` (default DurableLambdaExamples).
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app';

buildApp(new App());
