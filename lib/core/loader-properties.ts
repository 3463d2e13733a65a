/**
 * YCSB properties the loader agent sets itself (output paths, exporter, status interval, ...): a job
 * may not carry them, so the pipeline strips them from the planner's per-process properties and the
 * agent rejects a job that sets them.
 */
export const AGENT_OWNED_PROPERTIES = [
  'hdrhistogram.fileoutput',
  'hdrhistogram.output.path',
  'exporter',
  'exportfile',
  'status.interval',
  'db',
  'dotransactions',
  'measurementtype',
] as const;
