# Rack entry of the arena's Redmine (thin -R): Debian's Redmine behind a Host check
# (host_check.rb). The tracker's logins are fixed test credentials, public in
# ColorBrowser's source.
require ENV.fetch("ARENA_HOST_CHECK")
require File.expand_path("config/environment", ENV.fetch("ARENA_REDMINE"))

use ArenaHostCheck, ENV.fetch("ARENA_PORT")
run Rails.application
