#!/usr/bin/env node
import { packageVersion } from '../../internal/app/version.js';
import { exitQuietlyOnEpipe } from '../../internal/infra/cli/common-flags.js';
import { CTL_COMMANDS } from '../../internal/infra/cli/ctl-commands.js';
import { runCtl } from '../../internal/infra/cli/ctl-driver.js';

exitQuietlyOnEpipe();
const code = await runCtl(process.argv.slice(2), CTL_COMMANDS, {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  version: packageVersion(),
});
process.exit(code);
