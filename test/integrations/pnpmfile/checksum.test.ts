import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  lockfileChecksum,
  pnpmfileChecksumOf,
  withLockfileChecksum,
} from '../../../lib/integrations/pnpmfile/checksum.js';
import { PNPMFILE_SHIM } from '../../../lib/integrations/pnpmfile/shim.js';

// What pnpm 10.34.8 and 12.4.2 wrote for the shim (measured; test/e2e/pnpmfile-resolution.test.ts installs it).
const SHIM_CHECKSUM = 'sha256-QEbOCfsUO6AOOr/VrvAOMx8FueENNRHQ4w9JzVAXPIY=';
const LOCK = "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\nimporters:\n\n  .: {}\n";
const WITH = `lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\npnpmfileChecksum: ${SHIM_CHECKSUM}\n\nimporters:\n\n  .: {}\n`;

test("pnpmfileChecksumOf is pnpm's checksum of the file (CRLF read as LF)", () => {
  assert.equal(pnpmfileChecksumOf(PNPMFILE_SHIM), SHIM_CHECKSUM);
  assert.equal(pnpmfileChecksumOf(PNPMFILE_SHIM.replaceAll('\n', '\r\n')), SHIM_CHECKSUM);
});

test('withLockfileChecksum puts the line where pnpm writes it, replaces it, takes it back out byte for byte', () => {
  assert.equal(withLockfileChecksum(LOCK, SHIM_CHECKSUM), WITH);
  assert.equal(lockfileChecksum(WITH), SHIM_CHECKSUM);
  assert.equal(lockfileChecksum(LOCK), undefined);
  assert.equal(withLockfileChecksum(WITH, SHIM_CHECKSUM), WITH);
  assert.equal(withLockfileChecksum(WITH, undefined), LOCK);
  assert.equal(withLockfileChecksum(LOCK, undefined), LOCK);
  assert.equal(lockfileChecksum(withLockfileChecksum(WITH, 'sha256-x') ?? ''), 'sha256-x');
  // Before patchedDependencies, after overrides and packageExtensionsChecksum.
  const later =
    "lockfileVersion: '9.0'\n\noverrides:\n  a: 1.0.0\n\npackageExtensionsChecksum: sha256-p\n\npatchedDependencies:\n  a: x\n\nimporters:\n";
  assert.equal(
    withLockfileChecksum(later, 'sha256-c'),
    "lockfileVersion: '9.0'\n\noverrides:\n  a: 1.0.0\n\npackageExtensionsChecksum: sha256-p\n\npnpmfileChecksum: sha256-c\n\npatchedDependencies:\n  a: x\n\nimporters:\n",
  );
  // pnpm 11+'s env document first: the main document is edited.
  const envDoc = "---\nlockfileVersion: '9.0'\n\nimporters:\n  .: {}\n---\n";
  assert.equal(withLockfileChecksum(`${envDoc}${LOCK}`, SHIM_CHECKSUM), `${envDoc}${WITH}`);
});

test('withLockfileChecksum leaves a text it does not understand alone', () => {
  assert.equal(withLockfileChecksum('{}', SHIM_CHECKSUM), undefined);
  assert.equal(withLockfileChecksum("lockfileVersion: '9.0'\n", SHIM_CHECKSUM), undefined);
});
