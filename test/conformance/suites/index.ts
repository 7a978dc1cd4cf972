/** Every conformance suite, in the order they are reported. */
import { type Suite, suite } from '../harness/requirement';
import { CALLBACK_EXPECTATIONS } from './callback.expected';
import { CALLBACK_HANDLERS } from './callback.handlers';
import { CHILD_EXPECTATIONS } from './child.expected';
import { CHILD_HANDLERS } from './child.handlers';
import { INVOKE_EXPECTATIONS } from './invoke.expected';
import { INVOKE_HANDLERS } from './invoke.handlers';
import { MAP_EXPECTATIONS } from './map.expected';
import { MAP_HANDLERS } from './map.handlers';
import { PARALLEL_EXPECTATIONS } from './parallel.expected';
import { PARALLEL_HANDLERS } from './parallel.handlers';
import { PLUGIN_EXPECTATIONS } from './plugin.expected';
import { PLUGIN_HANDLERS } from './plugin.handlers';
import { STEP_EXPECTATIONS } from './step.expected';
import { STEP_HANDLERS } from './step.handlers';
import { WAIT_EXPECTATIONS } from './wait.expected';
import { WAIT_HANDLERS } from './wait.handlers';
import { WAIT_FOR_CALLBACK_EXPECTATIONS } from './wait-for-callback.expected';
import { WAIT_FOR_CALLBACK_HANDLERS } from './wait-for-callback.handlers';
import { WAIT_FOR_CONDITION_EXPECTATIONS } from './wait-for-condition.expected';
import { WAIT_FOR_CONDITION_HANDLERS } from './wait-for-condition.handlers';

export const SUITES: Suite[] = [
  suite('step', STEP_EXPECTATIONS, STEP_HANDLERS),
  suite('wait', WAIT_EXPECTATIONS, WAIT_HANDLERS),
  suite('child', CHILD_EXPECTATIONS, CHILD_HANDLERS),
  suite('callback', CALLBACK_EXPECTATIONS, CALLBACK_HANDLERS),
  suite('wait_for_callback', WAIT_FOR_CALLBACK_EXPECTATIONS, WAIT_FOR_CALLBACK_HANDLERS),
  suite('map', MAP_EXPECTATIONS, MAP_HANDLERS),
  suite('parallel', PARALLEL_EXPECTATIONS, PARALLEL_HANDLERS),
  suite('wait_for_condition', WAIT_FOR_CONDITION_EXPECTATIONS, WAIT_FOR_CONDITION_HANDLERS),
  suite('invoke', INVOKE_EXPECTATIONS, INVOKE_HANDLERS),
  suite('plugin', PLUGIN_EXPECTATIONS, PLUGIN_HANDLERS),
];
