/**
 * Rules of an external target beyond its schema: protocol settings and transport, a user's binding, its price model.
 */
import type { ExternalTarget, RunSpec } from '../../spec/schema';
import { MANAGED_PROPERTIES } from '../../plan/managed-properties';
import { AGENT_OWNED_PROPERTIES } from '../../contract/job';
import type { Findings } from '../kind';
import { transportChecks } from './transport';
import { coordinateChecks } from './binding-coordinates';

export function externalSpecChecks(t: ExternalTarget, at: string, _spec: RunSpec, out: Findings): void {
  const { issues } = out;
  transportChecks(t, at, out);
  if (t.redis && t.protocol !== 'redis')
    issues.push({
      path: `${at}.redis`,
      message: `Redis settings on a "${t.protocol}" target: remove them or set protocol "redis"`,
    });
  if (t.mongodb && t.protocol !== 'mongodb')
    issues.push({
      path: `${at}.mongodb`,
      message: `MongoDB settings on a "${t.protocol}" target: remove them or set protocol "mongodb"`,
    });
  bindingChecks(t, at, issues);
  priceChecks(t, at, issues);
  if (t.protocol === 'mongodb') mongoChecks(t, at, issues);
}

function bindingChecks(t: ExternalTarget, at: string, issues: Findings['issues']): void {
  if ((t.protocol === 'custom') !== (t.binding !== undefined))
    issues.push({
      path: `${at}.binding`,
      message:
        t.protocol === 'custom'
          ? 'required when protocol is "custom": the binding\'s dbClass and jars'
          : `a binding on a "${t.protocol}" target: remove it or set protocol "custom"`,
    });
  if (!t.binding) return;
  coordinateChecks(t.binding, at, issues);
  if (!t.binding.jars.length && !t.binding.maven.length)
    issues.push({
      path: `${at}.binding.jars`,
      message: 'a binding needs its jars, or Maven coordinates (binding.maven) to resolve them from',
    });
  const managed = new Set<string>([...MANAGED_PROPERTIES, ...AGENT_OWNED_PROPERTIES]);
  for (const k of Object.keys(t.binding.properties))
    if (managed.has(k))
      issues.push({
        path: `${at}.binding.properties.${k}`,
        message: 'is set by fleetbench (the planner or the loader agent); remove it',
      });
}

function priceChecks(t: ExternalTarget, at: string, issues: Findings['issues']): void {
  if (!('date' in t.price)) return;
  const m = t.price;
  if ([m.usdPerHour, m.usdPerNodeHour, m.usdPerMillionOps, m.usdPerGbMonth].every((x) => x === undefined))
    issues.push({
      path: `${at}.price`,
      message:
        'a price model needs at least one of usdPerHour, usdPerNodeHour, usdPerMillionOps, usdPerGbMonth',
    });
  if ((m.usdPerNodeHour === undefined) !== (m.nodes === undefined))
    issues.push({ path: `${at}.price.nodes`, message: 'usdPerNodeHour and nodes go together' });
  if ((m.usdPerGbMonth === undefined) !== (m.storageGb === undefined))
    issues.push({ path: `${at}.price.storageGb`, message: 'usdPerGbMonth and storageGb go together' });
}

function mongoChecks(t: ExternalTarget, at: string, issues: Findings['issues']): void {
  if (t.endpoints.length !== 1)
    issues.push({
      path: `${at}.endpoints`,
      message: `a MongoDB target takes one connection string (mongodb:// or mongodb+srv://), found ${t.endpoints.length}`,
    });
  t.endpoints.forEach((e, k) => {
    if (!/^mongodb(\+srv)?:\/\//.test(e))
      issues.push({
        path: `${at}.endpoints[${k}]`,
        message: 'expected a mongodb:// or mongodb+srv:// connection string',
      });
    else if (/^mongodb(\+srv)?:\/\/[^/@]*@/.test(e))
      issues.push({
        path: `${at}.endpoints[${k}]`,
        message: 'credentials in the connection string: put them in the credentialsSecretArn secret instead',
      });
  });
}
