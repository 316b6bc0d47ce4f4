<?php
/**
 * phpMyAdmin server entry for devplein's single sign-on. Debian: put this file in
 * /etc/phpmyadmin/conf.d/devplein.php (it is included after config.inc.php), or copy the lines
 * into your config.inc.php. $i is the server number config.inc.php is at.
 */
$cfg['Servers'][$i]['auth_type'] = 'signon';
$cfg['Servers'][$i]['SignonSession'] = 'DevpleinSignon';
// Where phpMyAdmin sends a browser without a signon session: back to the databases page.
$cfg['Servers'][$i]['SignonURL'] = 'https://devplein.school.nl/databases';
// After "Uitloggen" in phpMyAdmin.
$cfg['Servers'][$i]['LogoutURL'] = 'https://devplein.school.nl/databases';
$cfg['Servers'][$i]['host'] = '10.8.0.1';
$cfg['Servers'][$i]['port'] = '3306';
