// Stores consent for one root from its own process: `remember-consent HOME ROOT`.
import { rememberConsent } from '../../../src/core/consent';

const [home, root] = process.argv.slice(2);
rememberConsent(home!, root!, 'h'.repeat(64)).catch((error) => {
  console.error(error);
  process.exit(1);
});
