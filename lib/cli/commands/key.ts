// `lockguard key`: the current cache key of the fingerprint table, for scripts.

import { readWorkspaceFingerprints } from '../../core/fingerprints.js';
import { flag, parse } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { Command } from '../main.js';
import { DIR_HELP, DIR_OPTION, SCOPE_HELP, SCOPE_OPTION, scopeOf, workspaceOf } from '../workspace-option.js';

const help = `Usage: lockguard key [options]

Prints the key of the fingerprint table as it is now: sha256 over the entries' paths and bytes (or
absence), never stat data, so two machines with the same files print the same key. Records nothing.

Options:
${DIR_HELP}
${SCOPE_HELP}
  --json               print {key, scope, manager, entries} as JSON
  -h, --help           this text
`;

export const command: Command = {
  summary: 'print the current cache key',
  help,
  async run(argv, io: Io) {
    const parsed = parse('key', argv, { ...DIR_OPTION, ...SCOPE_OPTION, json: { type: 'boolean' } });
    const workspace = await workspaceOf(parsed, io);
    const table = readWorkspaceFingerprints(workspace.root, { scope: scopeOf(parsed, 'inputs'), manager: workspace.manager });
    if (flag(parsed, 'json')) {
      const entries = table.entries.map((entry) => ({ path: entry.path, kind: entry.kind, digest: entry.digest }));
      io.stdout.write(`${JSON.stringify({ key: table.key, scope: table.scope, manager: table.manager, entries }, null, 2)}\n`);
    } else {
      io.stdout.write(`${table.key}\n`);
    }
    return EXIT.ok;
  },
};
