<?php
/**
 * devplein → phpMyAdmin single sign-on (phpMyAdmin's "signon" auth_type).
 *
 * The databases page links to devplein's /api/user/databases/{id}/admin, which sends the
 * student's browser here with a one-time ticket (valid for a minute). This script redeems the
 * ticket server to server at devplein (with the shared secret), puts that one database's account
 * into phpMyAdmin's signon session and sends the browser on to phpMyAdmin with that database
 * open. The password never appears in a URL, the browser never sees it.
 *
 * Settings (environment of PHP-FPM / the web server, or edit the defaults below):
 *   DEVPLEIN_URL            devplein's base URL as this server reaches it, e.g. https://devplein.school.nl
 *   DEVPLEIN_SIGNON_SECRET  the same value as the control plane's DB_ADMIN_SIGNON_SECRET
 *   DEVPLEIN_PMA_URL        phpMyAdmin's URL for the browser, e.g. /phpmyadmin/
 *   DEVPLEIN_SESSION_NAME   must equal $cfg['Servers'][$i]['SignonSession'] (default DevpleinSignon)
 *   DEVPLEIN_MYSQL_HOST     optional: the MySQL host phpMyAdmin connects to (default: what devplein says)
 */

declare(strict_types=1);

$devpleinUrl = rtrim((string) (getenv('DEVPLEIN_URL') ?: 'http://127.0.0.1:8080'), '/');
$secret = (string) (getenv('DEVPLEIN_SIGNON_SECRET') ?: '');
$pmaUrl = (string) (getenv('DEVPLEIN_PMA_URL') ?: '/phpmyadmin/');
$sessionName = (string) (getenv('DEVPLEIN_SESSION_NAME') ?: 'DevpleinSignon');
$mysqlHost = (string) (getenv('DEVPLEIN_MYSQL_HOST') ?: '');

/** A short Dutch page, never the reason in detail (that is in devplein's log). */
function refuse(int $status, string $message): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    header('Cache-Control: no-store');
    echo '<!DOCTYPE html><html lang="nl"><meta charset="utf-8"><title>Databasebeheer</title>';
    echo '<p>' . htmlspecialchars($message, ENT_QUOTES) . '</p>';
    echo '<p><a href="/databases">Terug naar je databases</a></p></html>';
    exit;
}

$ticket = isset($_GET['ticket']) && is_string($_GET['ticket']) ? $_GET['ticket'] : '';
if ($secret === '' || !preg_match('/^[A-Za-z0-9_-]{43}$/', $ticket)) {
    refuse(400, 'Deze link is niet (meer) geldig. Open het databasebeheer opnieuw vanaf je databasespagina.');
}

$context = stream_context_create([
    'http' => [
        'method' => 'POST',
        'header' => "Content-Type: application/json\r\nAccept: application/json\r\nAuthorization: Bearer " . $secret . "\r\n",
        'content' => json_encode(['token' => $ticket]),
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
    refuse(502, 'devplein is op dit moment niet bereikbaar. Probeer het zo opnieuw.');
}
if ($status !== 200) {
    refuse(403, 'Deze link is niet (meer) geldig. Open het databasebeheer opnieuw vanaf je databasespagina.');
}
$account = json_decode($answer, true);
if (!is_array($account) || !isset($account['user'], $account['password'], $account['db'])) {
    refuse(502, 'devplein gaf een onverwacht antwoord.');
}

// phpMyAdmin reads these keys from the signon session (see its examples/signon.php).
$secure = !empty($_SERVER['HTTPS']) && $_SERVER['HTTPS'] !== 'off';
ini_set('session.use_cookies', 'true');
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

header('Cache-Control: no-store');
header('Location: ' . $pmaUrl . (str_contains($pmaUrl, '?') ? '&' : '?') . 'db=' . rawurlencode((string) $account['db']) . '&link=true', true, 302);
