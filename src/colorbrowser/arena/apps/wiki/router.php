<?php
# The router of the arena wiki's `php -S` server. A request addressed to another name
# than this server (DNS rebinding from a page in any browser on the machine) is refused
# before MediaWiki or a file is served; everything else is served as usual (`return
# false` hands the request back to the built-in server). The wiki's logins are fixed
# test credentials, public in ColorBrowser's source.
$arenaPort = getenv( "ARENA_PORT" );
$arenaHost = strtolower( $_SERVER['HTTP_HOST'] ?? '' );
$arenaNames = [ "127.0.0.1:$arenaPort", "localhost:$arenaPort", "[::1]:$arenaPort" ];
if ( !in_array( $arenaHost, $arenaNames, true ) ) {
	http_response_code( 403 );
	header( 'Content-Type: text/plain; charset=utf-8' );
	echo "forbidden: this local server answers only requests addressed to itself\n";
	return true;
}
return false;
