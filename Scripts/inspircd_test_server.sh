#!/usr/bin/env bash
# Starts InspIRCd (Debian package) in the foreground for a test: config in DIR, plain clients on
# 127.0.0.1:PLAIN_PORT and TLS clients on 127.0.0.1:TLS_PORT with CERT/KEY (PEM). PINGs clients every
# PING_SECONDS. The caller stops it by PID, and checks ircd.log in DIR for both listeners: InspIRCd
# keeps running when a port is taken and only logs it (Tests/CLITests/InspIRCdServer.swift). Usage:
#   inspircd_test_server.sh DIR PLAIN_PORT TLS_PORT CERT KEY [PING_SECONDS]
set -euo pipefail
dir=$1 plain=$2 tls=$3 cert=$4 key=$5 ping=${6:-120}
mkdir -p "$dir"
# Run in DIR and without core files: InspIRCd 3.15 (Debian) crashes on SIGTERM, and its core would
# otherwise land in the caller's working directory (the repository).
dir=$(cd "$dir" && pwd)
cd "$dir"
ulimit -c 0
echo "chatcap test server" > "$dir/motd.txt"
cat > "$dir/inspircd.conf" <<CONF
<config format="xml">
<server name="irc.test.local" description="chatcap test" network="Test">
<admin name="test" nick="test" email="test@example.invalid">
<module name="ssl_gnutls">
<sslprofile name="test" provider="gnutls" certfile="$cert" keyfile="$key" hash="sha256" requestclientcert="no">
<bind address="127.0.0.1" port="$plain" type="clients">
<bind address="127.0.0.1" port="$tls" type="clients" sslprofile="test">
<connect allow="*" timeout="60" pingfreq="$ping" sendq="262144" recvq="8192" localmax="100" globalmax="100" useident="no" limit="100" resolvehostnames="no">
<pid file="$dir/inspircd.pid">
<log method="file" type="* -USERINPUT -USEROUTPUT" level="default" target="$dir/ircd.log">
<files motd="$dir/motd.txt">
<dns timeout="1">
<options prefixquit="Quit: " syntaxhints="no" announcets="yes" hostintopic="yes">
<security hidewhois="" userstats="Pu" customversion="" runasuser="" runasgroup="">
<performance netbuffersize="10240" somaxconn="128" softlimit="1024" clonesonconnect="no" quietbursts="yes">
<module name="cap">
<module name="ircv3">
<module name="ircv3_servertime">
CONF
exec inspircd --nofork --runasroot --config "$dir/inspircd.conf"
