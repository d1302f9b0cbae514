// The redactor: every secret form of a command line and of a lockfile value is replaced by the marker,
// and the look-alikes that hold no secret stay exactly as they were.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSecretName, redactArgv, redactRecord, redactText, SECRET_MARKER } from '../../lib/core/redact.js';

const S = 'sEcReT-9f2c';

test('argv: option values, option=value, NAME=value and URL userinfo are replaced; the rest is kept', () => {
  const cases: [string[], string[]][] = [
    [
      ['turbo', 'run', 'build', '--token', S],
      ['turbo', 'run', 'build', '--token', '***'],
    ],
    [
      ['turbo', 'run', 'build', `--token=${S}`],
      ['turbo', 'run', 'build', '--token=***'],
    ],
    [
      ['x', '--foo-token', S, '--bar'],
      ['x', '--foo-token', '***', '--bar'],
    ],
    [
      ['x', `--foo-token=${S}`],
      ['x', '--foo-token=***'],
    ],
    [
      ['x', '--npmAuthToken', S],
      ['x', '--npmAuthToken', '***'],
    ],
    [
      ['x', `--client_secret=${S}`, `--db-password=${S}`, `--api-key=${S}`, `--auth=${S}`, `-p=${S}`],
      ['x', '--client_secret=***', '--db-password=***', '--api-key=***', '--auth=***', `-p=${S}`],
    ],
    [
      ['env', `TURBO_TOKEN=${S}`, `NPM_CONFIG__AUTH=${S}`, `GITHUB_TOKEN=${S}`, 'turbo'],
      ['env', 'TURBO_TOKEN=***', 'NPM_CONFIG__AUTH=***', 'GITHUB_TOKEN=***', 'turbo'],
    ],
    [
      ['pnpm', 'install', `--//registry.example.com/:_authToken=${S}`],
      ['pnpm', 'install', '--//registry.example.com/:_authToken=***'],
    ],
    [
      ['turbo', 'run', 'build', `--api=https://user:${S}@cache.example.com/api`],
      ['turbo', 'run', 'build', '--api=https://***@cache.example.com/api'],
    ],
    [
      ['turbo', '--api', `https://${S}@cache.example.com`],
      ['turbo', '--api', 'https://***@cache.example.com'],
    ],
    [
      ['turbo', `--remote-cache-url=https://u:${S}@h.example/x?token=${S}`],
      ['turbo', '--remote-cache-url=https://***@h.example/x?token=***'],
    ],
    [
      ['x', '--token'],
      ['x', '--token'],
    ],
    [
      ['x', '--token', '--verbose'],
      ['x', '--token', '--verbose'],
    ],
  ];
  for (const [argv, want] of cases) {
    assert.deepEqual(redactArgv(argv), want, argv.join(' '));
    assert.ok(!redactArgv(argv).join(' ').includes(S) || want.join(' ').includes(S), argv.join(' '));
  }
});

test('argv: look-alikes whose names are not secret stay (the word rule: --author, --filter=token-utils, --tokenizer)', () => {
  const kept = [
    ['pnpm', '--filter=token-utils', 'build'],
    ['pnpm', '--filter', 'token-utils', 'build'],
    ['git', 'log', '--author', 'alice'],
    ['x', '--author=alice', '--tokenizer', 'bpe', '--passWithNoTests', 'y'],
    ['node', '-e', 'const token = process.env.T; console.log(1)'],
    ['turbo', 'run', 'build', '--api=https://cache.example.com/api', 'git+ssh://git@github.com/o/r.git#abc'],
    ['x', 'NODE_OPTIONS=--max-old-space-size=4096', 'a=b', '--cache-dir=.turbo', 'https://h.example/p?page=2&sort=asc'],
  ];
  for (const argv of kept) assert.deepEqual(redactArgv(argv), argv, argv.join(' '));
  for (const name of [
    'author',
    'filter',
    'tokenizer',
    'authority',
    'passWithNoTests',
    'signal',
    'design',
    'keyboard',
    'key',
  ])
    assert.equal(isSecretName(name), false, name);
  for (const name of [
    'token',
    'TURBO_TOKEN',
    '_authToken',
    'npmAuthToken',
    'client_secret',
    'PASSWORD',
    'api-key',
    'apiKey',
    'privateKey',
    'X-Amz-Signature',
    'sig',
    'oauth',
    'Authorization',
    'X-Amz-Credential',
  ])
    assert.equal(isSecretName(name), true, name);
});

test('text: URL userinfo and secret query values in lockfile values of every format', () => {
  const cases: [string, string][] = [
    // pnpm: a package key / tarball resolution
    [
      `tiny-dep@https://user:${S}@npm.example.com/tiny-dep/-/tiny-dep-7.0.0.tgz?_authToken=${S}`,
      'tiny-dep@https://***@npm.example.com/tiny-dep/-/tiny-dep-7.0.0.tgz?_authToken=***',
    ],
    // npm: resolved
    [`https://npm.example.com/t.tgz?token=${S}&x=1`, 'https://npm.example.com/t.tgz?token=***&x=1'],
    // yarn berry: resolution with a fragment after the query
    [
      `tiny-dep@https://npm.example.com/t.tgz?access_token=${S}#sha1`,
      'tiny-dep@https://npm.example.com/t.tgz?access_token=***#sha1',
    ],
    // yarn v1: resolved with a hash
    [`https://${S}:x-oauth-basic@github.com/o/r.tgz#deadbeef`, 'https://***@github.com/o/r.tgz#deadbeef'],
    // bun: an ident
    [`tiny-dep@https://u:${S}@h.example/t.tgz`, 'tiny-dep@https://***@h.example/t.tgz'],
    // signed storage URLs
    [
      `https://b.s3.example/t.tgz?X-Amz-Credential=${S}&X-Amz-Signature=${S}&X-Amz-Expires=60`,
      'https://b.s3.example/t.tgz?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60',
    ],
    [
      `https://acct.blob.example/t.tgz?sv=2020&sig=${S}&key=${S}`,
      'https://acct.blob.example/t.tgz?sv=2020&sig=***&key=***',
    ],
    [
      `pnpm-lock.yaml moved: the slice of packages/b changed (tiny-dep https://u:${S}@h/7.tgz → https://h/6.tgz?_authToken=${S}); 1 other project unchanged`,
      'pnpm-lock.yaml moved: the slice of packages/b changed (tiny-dep https://***@h/7.tgz → https://h/6.tgz?_authToken=***); 1 other project unchanged',
    ],
  ];
  for (const [text, want] of cases) assert.equal(redactText(text), want, text);
  for (const kept of [
    'tiny-dep 7.0.0 → 6.0.0',
    'git+ssh://git@github.com/o/r.git#v1',
    'https://h.example/t.tgz?page=2',
    'file:vendor/tiny-dep-7.0.0.tgz',
    'a@b',
    'a & b; c ?',
  ])
    assert.equal(redactText(kept), kept);
});

test('idempotent, and the marker is what replaces', () => {
  const once = redactArgv(['x', `--token=${S}`, '--auth', S, `https://u:${S}@h/?sig=${S}`]);
  assert.deepEqual(redactArgv(once), once);
  assert.equal(redactText(redactText(`https://u:${S}@h/?sig=${S}`)), redactText(`https://u:${S}@h/?sig=${S}`));
  assert.equal(SECRET_MARKER, '***');
});

test('records: command arrays as argv, every other string as text, the rest untouched; nothing copied when nothing changed', () => {
  const record = {
    version: 1,
    command: ['turbo', '--token', S],
    nested: [{ command: [`TURBO_TOKEN=${S}`] }, { text: `https://u:${S}@h/x` }],
    n: 3,
    ok: true,
    none: null,
  };
  const redacted = redactRecord(record);
  assert.deepEqual(redacted, {
    version: 1,
    command: ['turbo', '--token', '***'],
    nested: [{ command: ['TURBO_TOKEN=***'] }, { text: 'https://***@h/x' }],
    n: 3,
    ok: true,
    none: null,
  });
  assert.ok(JSON.stringify(record).includes(S), 'the input is not changed (the child gets its argv exactly)');
  assert.deepEqual(
    redactRecord({ command: `turbo run build --token ${S} --filter=web` }),
    { command: 'turbo run build --token *** --filter=web' },
    'a command line as one string',
  );
  const clean = { command: ['true'], entries: [{ path: 'pnpm-lock.yaml', digest: 'ab' }] };
  assert.equal(redactRecord(clean), clean);
});

test('query parameters: linear on runs of separators, and a secret after a `?` inside a name is still found', {
  // Quadratic before (a name could hold `?`): 40,000 `?` took 7.5 s, 1,000,000 would take over an hour.
  timeout: 120_000,
}, () => {
  const n = 1_000_000;
  for (const text of [
    '?'.repeat(n),
    `?${'?x'.repeat(n / 2)}`,
    `?${'&'.repeat(n)}`,
    `?${';'.repeat(n)}`,
    `?a=${'='.repeat(n)}`,
  ])
    assert.equal(redactText(text), text);
  assert.equal(redactText(`https://h/t.tgz?x?token=${S}`), 'https://h/t.tgz?x?token=***');
  assert.equal(redactText(`https://h/t.tgz??sig=${S}&a=1`), 'https://h/t.tgz??sig=***&a=1');
  assert.equal(redactText(`https://h/t.tgz?a?key=${S}`), 'https://h/t.tgz?a?key=***');
  assert.equal(redactText(`${'?'.repeat(n)}token=${S}`), `${'?'.repeat(n)}token=***`);
});
