/** The name of a run's login secret for a target: under the prefix the loaders may read. */
export function cqlLoginSecretName(runId: string, targetId: string): string {
  return `fleetbench/${runId}/${targetId}-cql`;
}
