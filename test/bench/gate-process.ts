// A remote gate in a process of its own, as `lockguard run` holds it: deciding each restore and upload
// from a GuardSession's re-check of the workspace's table. For the gate benchmarks only.
//
// `node gate-process.js <protocol> <upstream url> <workspace root>` prints `listening <port>`; when its
// stdin ends it prints `{"rssStartKb":…, "maxRssKb":…}` and exits (maxRSS: the kernel's high-water mark).

import { readWorkspaceFingerprints } from '../../lib/core/fingerprints.js';
import { GuardSession } from '../../lib/ledger/session.js';
import { parseUpstream, startGate, type GateProtocol } from '../../lib/integrations/remote-gate/index.js';

const [protocol, url, root] = process.argv.slice(2);
const upstream = parseUpstream(url ?? '');
if (typeof upstream === 'string' || root === undefined)
  throw new Error('usage: gate-process <protocol> <upstream> <root>');
const session = new GuardSession(readWorkspaceFingerprints(root), 'withhold', ['bench']);
const gate = await startGate({
  protocol: protocol as GateProtocol,
  upstream,
  decide: (): 'pass' | 'refuse' => (session.admits() ? 'pass' : 'refuse'),
});
const rssStartKb = process.resourceUsage().maxRSS;
process.stdout.write(`listening ${gate.port}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void gate.close().then(() => {
    session.stop();
    process.stdout.write(
      `${JSON.stringify({ rssStartKb, maxRssKb: process.resourceUsage().maxRSS, stats: gate.stats() })}\n`,
    );
    process.exit(0);
  });
});
