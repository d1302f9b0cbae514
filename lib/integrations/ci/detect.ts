// Which CI lockguard runs in: the one place that reads the CI providers' own environment variables.
//
// Owns: `ciOf` (GitHub Actions, GitLab CI, CircleCI, or a plain `CI=true`, from the variables each provider
// documents: GITHUB_ACTIONS, GITLAB_CI, CIRCLECI, CI) and `isCi`. What a command writes for the CI it is
// in (GitHub's annotations and job summary) is decided from this value, never from an env read elsewhere.
// Invariants: pure (env in, value out); a provider counts only when its variable is exactly "true" (as each
// sets it); `CI` counts unless empty, "0" or "false" (any case), the convention of ci-info and turbo.

type CiName = 'github' | 'gitlab' | 'circleci' | 'other';

export interface Ci {
  readonly name: CiName;
}

import type { Env } from '../../core/env.js';

const PROVIDERS: readonly (readonly [CiName, string])[] = [
  ['github', 'GITHUB_ACTIONS'],
  ['gitlab', 'GITLAB_CI'],
  ['circleci', 'CIRCLECI'],
];

/** Whether `CI` says a CI runs this process. */
export function isCi(env: Env): boolean {
  const value = env['CI'];
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** The CI this process runs in, or undefined outside CI. */
export function ciOf(env: Env): Ci | undefined {
  for (const [name, variable] of PROVIDERS) if (env[variable] === 'true') return { name };
  return isCi(env) ? { name: 'other' } : undefined;
}
