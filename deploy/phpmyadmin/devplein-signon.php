<?php
/**
 * devplein → phpMyAdmin single sign-on (phpMyAdmin's "signon" auth_type), on phpMyAdmin's own
 * origin (its own host name: never devplein's, whose session phpMyAdmin's pages must not reach).
 *
 * A ticket works only in the browser that asked for it (the OAuth `state` way):
 *
 *   1. ?database={id}  (devplein's admin link sends the browser here) — this page puts a random
 *      nonce in a cookie of its own and sends the browser to devplein:
 *      {DEVPLEIN_APP_URL}/api/user/databases/{id}/admin?state={nonce};
 *   2. devplein checks that the signed-in developer owns database {id} and sends the browser back
 *      with a one-time ticket (valid for a minute) bound to that nonce and that sign-in:
 *      ?ticket={ticket};
 *   3. this page redeems the ticket server to server at devplein with the nonce of its cookie
 *      (and the shared secret); devplein checks the nonce, that the owner is still an active
 *      developer and still signed in, and answers once with that database's account. The page
 *      puts it into phpMyAdmin's signon session and sends the browser on to phpMyAdmin with that
 *      database open. The password never appears in a URL, the browser never sees it.
 *
 * A ticket link opened in another browser (a student sending a teacher their link) has no nonce,
 * or another one, and is refused.
 *
 * Settings (environment of PHP-FPM / the web server, or edit the defaults below):
 *   DEVPLEIN_URL            devplein's base URL as this server reaches it, e.g. https://devplein.school.nl
 *   DEVPLEIN_APP_URL        devplein's URL for the browser (its APP_URL); default DEVPLEIN_URL
 *   DEVPLEIN_SIGNON_SECRET  the same value as the control plane's DB_ADMIN_SIGNON_SECRET
 *   DEVPLEIN_PMA_URL        phpMyAdmin's URL for the browser, on this origin, e.g. /
 *   DEVPLEIN_SESSION_NAME   must equal $cfg['Servers'][$i]['SignonSession'] (default DevpleinSignon)
 *   DEVPLEIN_MYSQL_HOST     optional: the MySQL host phpMyAdmin connects to (default: what devplein says)
 */

declare(strict_types=1);

$devpleinUrl = rtrim((string) (getenv('DEVPLEIN_URL') ?: 'http://127.0.0.1:8080'), '/');
$appUrl = rtrim((string) (getenv('DEVPLEIN_APP_URL') ?: $devpleinUrl), '/');
$secret = (string) (getenv('DEVPLEIN_SIGNON_SECRET') ?: '');
$pmaUrl = (string) (getenv('DEVPLEIN_PMA_URL') ?: '/');
$sessionName = (string) (getenv('DEVPLEIN_SESSION_NAME') ?: 'DevpleinSignon');
$mysqlHost = (string) (getenv('DEVPLEIN_MYSQL_HOST') ?: '');

$secure = !empty($_SERVER['HTTPS']) && $_SERVER['HTTPS'] !== 'off';
// This browser's nonce. Over HTTPS a __Host- cookie: only this host sets or reads it.
$stateCookie = $secure ? '__Host-DevpleinSignonState' : 'DevpleinSignonState';
$stateCookieOptions = ['path' => '/', 'secure' => $secure, 'httponly' => true, 'samesite' => 'Lax'];

header('Cache-Control: no-store');
// The ticket and the nonce are in this page's URLs: never in a Referer.
header('Referrer-Policy: no-referrer');
header('X-Frame-Options: DENY');
header("Content-Security-Policy: default-src 'none'; frame-ancestors 'none'");

/** A short Dutch page, never the reason in detail (that is in devplein's log). */
function refuse(int $status, string $message, string $appUrl): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    echo '<!DOCTYPE html><html lang="nl"><meta charset="utf-8"><title>Databasebeheer</title>';
    echo '<p>' . htmlspecialchars($message, ENT_QUOTES) . '</p>';
    echo '<p><a href="' . htmlspecialchars($appUrl . '/databases', ENT_QUOTES) . '">Terug naar je databases</a></p></html>';
    exit;
}

$invalid = 'Deze link is niet (meer) geldig. Open het databasebeheer opnieuw vanaf je databasespagina.';
if ($secret === '') {
    refuse(503, 'Aanmelden bij het databasebeheer via devplein is hier niet ingesteld.', $appUrl);
}

// 1. The start: a fresh nonce for this browser, then to devplein for a ticket bound to it.
$database = isset($_GET['database']) && is_string($_GET['database']) ? $_GET['database'] : '';
if ($database !== '') {
    if (!preg_match('/^[1-9][0-9]{0,9}$/', $database)) {
        refuse(400, $invalid, $appUrl);
    }
    $state = rtrim(strtr(base64_encode(random_bytes(32)), '+/', '-_'), '=');
    setcookie($stateCookie, $state, ['expires' => time() + 300] + $stateCookieOptions);
    header('Location: ' . $appUrl . '/api/user/databases/' . $database . '/admin?state=' . $state, true, 302);
    exit;
}

// 2. The ticket devplein sent back: redeemed only with this browser's nonce, which is used up now.
$ticket = isset($_GET['ticket']) && is_string($_GET['ticket']) ? $_GET['ticket'] : '';
$state = isset($_COOKIE[$stateCookie]) && is_string($_COOKIE[$stateCookie]) ? $_COOKIE[$stateCookie] : '';
setcookie($stateCookie, '', ['expires' => 1] + $stateCookieOptions);
if (!preg_match('/^[A-Za-z0-9_-]{60}$/', $ticket) || !preg_match('/^[A-Za-z0-9_-]{43}$/', $state)) {
    refuse(403, $invalid, $appUrl);
}

$context = stream_context_create([
    'http' => [
        'method' => 'POST',
        'header' => "Content-Type: application/json\r\nAccept: application/json\r\nAuthorization: Bearer " . $secret . "\r\n",
        'content' => json_encode(['token' => $ticket, 'state' => $state]),
        'timeout' => 5,
        'ignore_errors' => true,
    ],
]);
$answer = @file_get_contents($devpleinUrl . '/api/db-admin/signon', false, $context);
$status = 0;
foreach ($http_response_header ?? [] as $line) {
    if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $match)) {
        $status = (int) $match[1];
    }
}
if ($answer === false || $status === 0) {
    refuse(502, 'devplein is op dit moment niet bereikbaar. Probeer het zo opnieuw.', $appUrl);
}
if ($status !== 200) {
    refuse(403, $invalid, $appUrl);
}
$account = json_decode($answer, true);
if (!is_array($account) || !isset($account['user'], $account['password'], $account['db'])) {
    refuse(502, 'devplein gaf een onverwacht antwoord.', $appUrl);
}

// phpMyAdmin reads these keys from the signon session (its examples/signon.php); the cookie
// parameters equal $cfg['Servers'][$i]['SignonCookieParams'] (config.signon.inc.php).
ini_set('session.use_cookies', 'true');
ini_set('session.use_strict_mode', 'true');
session_set_cookie_params(['lifetime' => 0, 'path' => '/', 'secure' => $secure, 'httponly' => true, 'samesite' => 'Lax']);
session_name($sessionName);
session_start();
session_regenerate_id(true);
$_SESSION['PMA_single_signon_user'] = (string) $account['user'];
$_SESSION['PMA_single_signon_password'] = (string) $account['password'];
$_SESSION['PMA_single_signon_host'] = $mysqlHost !== '' ? $mysqlHost : (string) ($account['host'] ?? 'localhost');
$_SESSION['PMA_single_signon_port'] = (string) ($account['port'] ?? '3306');
$_SESSION['PMA_single_signon_HMAC_secret'] = bin2hex(random_bytes(20));
session_write_close();

header('Location: ' . $pmaUrl . (str_contains($pmaUrl, '?') ? '&' : '?') . 'db=' . rawurlencode((string) $account['db']) . '&link=true', true, 302);
