/**
 * A fresh Debian 13 (trixie) server with systemd: install.sh for both roles and every shipped
 * unit run as shipped (tests/support/stacks/debian-server-suite.ts). Runs as root.
 */
import { debianServerSuite } from '../support/stacks/debian-server-suite.ts';

debianServerSuite('trixie');
