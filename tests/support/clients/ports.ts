/**
 * Port and readiness helpers for tests: find a free loopback port for a throwaway server, and
 * wait for a condition or an HTTP endpoint instead of sleeping. Shared with the start scripts.
 */
export { findFreePort, waitFor, waitForHttp, httpAnswers, type WaitForOptions } from '../../../scripts/lib/net.ts';
