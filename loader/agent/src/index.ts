/** The loader agent's programmatic interface (the local mode runs agents in-process or as children). */
export { runJob, defaultJava, YCSB_MAIN_CLASS } from './run-job';
export type { AgentDeps, JobResult, ProcessManifest } from './run-job';
export { validateJob, loadJob } from './job';
export { JobSchema, AGENT_OWNED_PROPERTIES } from '../../../lib/core/contract/job';
export type { Job, JobInput } from './job';
export { agentMain, bundleClasspath } from './main';
export { parseStatusLine, judgeProcess, opTotals } from './ycsb-output';
export { parseSummary } from '../../../lib/core/contract/summary';
