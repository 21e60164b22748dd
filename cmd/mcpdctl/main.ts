#!/usr/bin/env node
import { packageVersion } from '../../internal/shared/version.js';
import { exitQuietlyOnEpipe } from '../../internal/launch/common-flags.js';
import { CTL_COMMANDS } from '../../internal/ctl/ctl-commands.js';
import { runCtl } from '../../internal/ctl/ctl-driver.js';

exitQuietlyOnEpipe();
const code = await runCtl(process.argv.slice(2), CTL_COMMANDS, {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  version: packageVersion(),
});
process.exit(code);
