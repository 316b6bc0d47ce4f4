<?php
/**
 * phpMyAdmin server entry for devplein's single sign-on. Debian: put this file in
 * /etc/phpmyadmin/conf.d/devplein.php (it is included after config.inc.php), or copy the lines
 * into your config.inc.php. $i is the server number config.inc.php is at. phpMyAdmin is served
 * on a host name of its own (phpmyadmin.school.nl in deploy/caddy/Caddyfile), never devplein's.
 */
$cfg['Servers'][$i]['auth_type'] = 'signon';
$cfg['Servers'][$i]['SignonSession'] = 'DevpleinSignon';
// The cookie of that session as devplein-signon.php sets it (phpMyAdmin's signon guidance:
// the same parameters on both sides). Over plain HTTP (a test set-up) make 'secure' false.
$cfg['Servers'][$i]['SignonCookieParams'] = ['lifetime' => 0, 'path' => '/', 'domain' => '', 'secure' => true, 'httponly' => true, 'samesite' => 'Lax'];
// Where phpMyAdmin sends a browser without a signon session: back to the databases page.
$cfg['Servers'][$i]['SignonURL'] = 'https://devplein.school.nl/databases';
// After "Uitloggen" in phpMyAdmin.
$cfg['Servers'][$i]['LogoutURL'] = 'https://devplein.school.nl/databases';
$cfg['Servers'][$i]['host'] = '10.8.0.1';
$cfg['Servers'][$i]['port'] = '3306';
// phpMyAdmin's pages are never framed by another site (its default; said here so it stays).
$cfg['AllowThirdPartyFraming'] = false;
