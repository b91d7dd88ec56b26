// Appends COUNT audit entries from its own process: `append-audit HOME WRITER COUNT MAXBYTES`.
import { createAuditLog } from '../../../src/core/audit';

const [home, writer, count, maxBytes] = process.argv.slice(2);
const log = createAuditLog(home!, { maxBytes: Number(maxBytes), keep: 50 });

async function main(): Promise<void> {
  for (let i = 0; i < Number(count); i++) {
    await log.append({ kind: 'consent', time: new Date().toISOString(), root: `${writer}:${i}:${'x'.repeat(200)}`, decision: 'allow_once', hash: '' });
  }
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
