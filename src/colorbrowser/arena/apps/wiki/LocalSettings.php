<?php
# MediaWiki settings of the arena wiki. Data lives in $ARENA_DATA (so one file serves
# every instance's copy) and the address comes from $ARENA_PORT. Keys below are fixed
# on purpose: this is a local test fixture, and a fixed key keeps builds identical.
if ( !defined( 'MEDIAWIKI' ) ) {
	exit;
}
require_once "$IP/includes/PlatformSettings.php";

$wgSitename = "Valdoria Encyclopedia";
$wgMetaNamespace = "Encyclopedia";
$wgScriptPath = "";
$wgServer = "http://127.0.0.1:" . getenv( "ARENA_PORT" );
$wgResourceBasePath = $wgScriptPath;
# The logo ships beside this file; php -S serves only MediaWiki's tree, so inline it.
$arenaLogo = "data:image/svg+xml;base64," . base64_encode( file_get_contents( __DIR__ . "/logo.svg" ) );
$wgLogos = [ '1x' => $arenaLogo, 'icon' => $arenaLogo ];
$wgEnableEmail = false;
$wgEnableUserEmail = false;

$wgDBtype = "sqlite";
$wgDBserver = "";
$wgDBname = "arenawiki";
$wgDBuser = "";
$wgDBpassword = "";
$wgSQLiteDataDir = getenv( "ARENA_DATA" );
$wgObjectCaches[CACHE_DB] = [
	'class' => SqlBagOStuff::class,
	'loggroup' => 'SQLBagOStuff',
	'server' => [
		'type' => 'sqlite',
		'dbname' => 'wikicache',
		'tablePrefix' => '',
		'variables' => [ 'synchronous' => 'NORMAL' ],
		'dbDirectory' => $wgSQLiteDataDir,
		'trxMode' => 'IMMEDIATE',
		'flags' => 0
	]
];
$wgLocalisationCacheConf['storeServer'] = [
	'type' => 'sqlite',
	'dbname' => "{$wgDBname}_l10n_cache",
	'tablePrefix' => '',
	'variables' => [ 'synchronous' => 'NORMAL' ],
	'dbDirectory' => $wgSQLiteDataDir,
	'trxMode' => 'IMMEDIATE',
	'flags' => 0
];
$wgJobTypeConf['default'] = [
	'class' => 'JobQueueDB',
	'claimTTL' => 3600,
	'server' => [
		'type' => 'sqlite',
		'dbname' => "{$wgDBname}_jobqueue",
		'tablePrefix' => '',
		'variables' => [ 'synchronous' => 'NORMAL' ],
		'dbDirectory' => $wgSQLiteDataDir,
		'trxMode' => 'IMMEDIATE',
		'flags' => 0
	]
];
$wgResourceLoaderUseObjectCacheForDeps = true;
$wgSharedTables[] = "actor";
$wgMainCacheType = CACHE_NONE;
$wgSessionCacheType = CACHE_DB;
$wgParserCacheType = CACHE_DB;
$wgCacheDirectory = getenv( "ARENA_DATA" ) . "/cache";
$wgUploadDirectory = getenv( "ARENA_DATA" ) . "/images";
$wgEnableUploads = false;
$wgUseInstantCommons = false;
$wgPingback = false;
$wgLanguageCode = "en";
$wgLocaltimezone = "UTC";
$wgSecretKey = "arena0wiki0local0fixture0key0not0a0secret0000000000000000000000000";
$wgAuthenticationTokenVersion = "1";
$wgUpgradeKey = "arenawikiupgrade";
$wgRightsText = "Creative Commons Attribution-ShareAlike";
$wgDefaultSkin = "vector";
wfLoadSkin( 'Vector' );
wfLoadSkin( 'MonoBook' );
wfLoadExtension( 'ParserFunctions' );
wfLoadExtension( 'Cite' );
wfLoadExtension( 'CategoryTree' );
$wgGroupPermissions['*']['createaccount'] = false;
$wgGroupPermissions['*']['edit'] = false;
# Jobs run at build time; a page view never starts background work during a task.
$wgJobRunRate = 0;
# The seeded history is older than the default 90 days of recent changes.
$wgRCMaxAge = 20 * 365 * 24 * 3600;
$wgPasswordPolicy['policies']['sysop']['MinimalPasswordLength'] = 8;
$wgPasswordPolicy['policies']['default']['PasswordNotInCommonList'] = false;
