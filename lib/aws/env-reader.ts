/** How an adapter reads the Lambda's environment: lambdas/shared/env.ts gives it, failing fast naming a missing variable. */
export interface EnvReader {
  /** The variable's value, or undefined when it is not set. */
  get(name: string): string | undefined;
  /** The variable's value; throws naming the variable when it is not set. */
  require(name: string): string;
}
